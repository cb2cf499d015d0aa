// Proxies for the runtime's HTTP traffic (model requests and MCP http/sse servers): the editor passes
// VS Code's `http.proxy` / `http.proxyStrictSSL`, the CLI HTTPS_PROXY / HTTP_PROXY / NO_PROXY. The runtime
// is detached, so it never relies on its own environment for this: each client says what applies.
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
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
    const agent = new EnvHttpProxyAgent({
      httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: proxy.noProxy ?? '',
      ...(strict ? {} : { connect: { rejectUnauthorized: false }, requestTls: { rejectUnauthorized: false }, proxyTls: { rejectUnauthorized: false } }),
    });
    fetch = ((input, init) => undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never) as unknown as Promise<Response>) as FetchFn;
    cache.set(key, fetch);
  }
  return fetch;
}
