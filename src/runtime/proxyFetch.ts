// Proxies for the runtime's HTTP traffic (model requests and MCP http/sse servers): the editor passes
// VS Code's `http.proxy` / `http.proxyStrictSSL`, the CLI HTTPS_PROXY / HTTP_PROXY / NO_PROXY. The runtime
// is detached, so it never relies on its own environment for this: each client says what applies.
// undici loads on the first proxied request (a dynamic import): without a proxy the runtime never needs it.
import type { Dispatcher } from 'undici';
import type { ProxySettings } from '../common/protocol/runtime';

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const cache = new Map<string, FetchFn>();

/** A fetch through the proxy, or undefined for a direct connection (the global fetch). */
export function proxyFetch(proxy: ProxySettings | undefined): FetchFn | undefined {
  if (!proxy?.url) return undefined;
  const key = JSON.stringify(proxy);
  let fetch = cache.get(key);
  if (!fetch) {
    const strict = proxy.strictSSL !== false;
    const url = proxy.url;
    let agent: Dispatcher | undefined;
    fetch = (async (input, init) => {
      const undici = await import('undici');
      agent ??= new undici.EnvHttpProxyAgent({
        httpProxy: url, httpsProxy: url, noProxy: proxy.noProxy ?? '',
        ...(strict ? {} : { connect: { rejectUnauthorized: false }, requestTls: { rejectUnauthorized: false }, proxyTls: { rejectUnauthorized: false } }),
      });
      return undici.fetch(input as never, { ...(init as object), dispatcher: agent } as never) as unknown as Promise<Response>;
    }) as FetchFn;
    cache.set(key, fetch);
  }
  return fetch;
}
