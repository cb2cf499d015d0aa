// A plain local forwarding proxy for the proxy tests: absolute-form HTTP requests and CONNECT tunnels,
// each recorded as `<METHOD> <target>` in `seen`.
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LocalProxy { url: string; seen: string[]; close(): Promise<void> }

export async function startProxy(): Promise<LocalProxy> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    // Absolute-form requests (plain HTTP through a proxy).
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, reply => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
