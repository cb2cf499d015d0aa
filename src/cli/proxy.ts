// The CLI's proxy: HTTPS_PROXY (or HTTP_PROXY, either case) and NO_PROXY, passed to the runtime.
import type { ProxySettings } from '../common/protocol/runtime';

export function cliProxy(env: NodeJS.ProcessEnv): ProxySettings {
  const url = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || '';
  const noProxy = env.NO_PROXY || env.no_proxy || '';
  // '' (not undefined) clears a proxy this connection configured before.
  return { url, ...(noProxy ? { noProxy } : {}) };
}
