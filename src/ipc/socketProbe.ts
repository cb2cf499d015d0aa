// Whether something accepts connections on a Unix socket now: a runtime that already serves a store.
import * as net from 'node:net';

export function socketAccepts(socketPath: string): Promise<boolean> {
  return new Promise(resolve => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
