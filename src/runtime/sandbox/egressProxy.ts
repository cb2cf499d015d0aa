// The one way out of a sandbox with fork.sandbox.allowNetwork: an HTTP proxy (CONNECT for TLS, absolute
// URIs for plain HTTP) on a unix socket that only this fork's sandbox has bound in, so the socket says which
// fork asks and no credential travels in the environment. A host not on the list gets 403 with a reason the
// model can read. Names are resolved here and private, loopback and link-local addresses refused, so an
// allowed name pointing inward (DNS rebinding, cloud metadata) does not open the host's own services.
import { promises as dns } from 'node:dns';
import * as fs from 'node:fs';
import type * as Http from 'node:http';
import * as net from 'node:net';
import { hostAllowed } from '../../common/sandbox';

export interface EgressDecision { host: string; port: number; allowed: boolean; reason?: string }

export interface EgressProxyOptions {
  socketPath: string;
  allow: readonly string[];
  /**
   * Names answered without DNS (like curl's --resolve), from FORK_AGENTS_SANDBOX_HOSTS="name=address,…":
   * the user's own mapping, so its addresses are trusted even when local (a test server, a dev registry).
   */
  pinned?: ReadonlyMap<string, string>;
  onDecision?(decision: EgressDecision): void;
}

export interface EgressProxy { socketPath: string; close(): Promise<void> }

export function pinnedHostsFromEnv(value: string | undefined): Map<string, string> {
  const pinned = new Map<string, string>();
  for (const pair of (value ?? '').split(',')) {
    const [name, address] = pair.split('=').map(s => s.trim());
    if (name && address && net.isIP(address)) pinned.set(name.toLowerCase(), address);
  }
  return pinned;
}

export function isInwardAddress(address: string): boolean {
  if (net.isIPv4(address)) {
    const [a, b] = address.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:')) return isInwardAddress(lower.slice(7));
  return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}

const DENIED = 'blocked by the fork sandbox\'s network policy (fork.sandbox.allowNetwork)';

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  // Required here, not at the top: node:http is the costliest built-in module the runtime would otherwise
  // load at start-up, and only a sandboxed fork with network access needs it.
  const http = require('node:http') as typeof Http;
  const decide = async (host: string): Promise<{ address?: string; reason?: string }> => {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    if (!hostAllowed(name, options.allow)) return { reason: `${name} is not an allowed host` };
    const pinned = options.pinned?.get(name);
    if (pinned) return { address: pinned };
    try {
      const found = await dns.lookup(name);
      if (isInwardAddress(found.address)) return { reason: `${name} resolves to the local or private address ${found.address}` };
      return { address: found.address };
    } catch (error) {
      return { reason: `${name} did not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  };
  const report = (host: string, port: number, reason?: string) => options.onDecision?.({ host, port, allowed: !reason, ...(reason ? { reason } : {}) });

  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('the sandbox proxy takes absolute URLs only\n');
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('use CONNECT for https\n');
      return;
    }
    const port = Number(url.port || 80);
    void decide(url.hostname).then(({ address, reason }) => {
      report(url.hostname, port, reason);
      if (!address) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end(`${url.hostname}: ${DENIED}: ${reason}\n`);
        return;
      }
      const upstream = http.request({ host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...req.headers, host: url.host } }, answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', error => res.destroy(error));
      req.pipe(upstream);
    });
  });
  server.on('connect', (req: Http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    // A client that resets its connection only ends its own tunnel; without a listener it would end the proxy.
    client.on('error', () => undefined);
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const host = match[1];
    const port = Number(match[2]);
    void decide(host).then(({ address, reason }) => {
      report(host, port, reason);
      if (!address) {
        client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${host}: ${DENIED}: ${reason}\n`);
        return;
      }
      const upstream = net.connect(port, address, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  // Tunnels are no longer HTTP connections: close() must end them itself.
  const sockets = new Set<net.Socket>();
  server.on('connection', socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  try {
    fs.unlinkSync(options.socketPath);
  } catch {
    // none left over
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  fs.chmodSync(options.socketPath, 0o600);
  return {
    socketPath: options.socketPath,
    close: () => new Promise(resolve => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
      try {
        fs.unlinkSync(options.socketPath);
      } catch {
        // gone
      }
    }),
  };
}
