// Blocks of ports for running forks: each running fork holds one block of the configured range
// that no other running fork of this runtime holds, and whose first port nothing on the machine listens
// on right now. Its tools get the block as FORK_AGENTS_PORT_BASE (and PORT), so parallel dev servers
// do not collide.
import * as net from 'node:net';
import { DEFAULT_PORT_BLOCK, DEFAULT_PORT_RANGE, parsePortRange } from '../../../common/worktreeOptions';

export class PortBlocks {
  /** Base port → fork id. */
  private readonly held = new Map<number, string>();

  /** A free block for the fork (the one it holds already, if any); undefined when the range is used up. */
  async acquire(forkId: string, rangeText = DEFAULT_PORT_RANGE, blockSize = DEFAULT_PORT_BLOCK): Promise<number | undefined> {
    for (const [base, owner] of this.held) if (owner === forkId) return base;
    const parsed = parsePortRange(rangeText);
    const range = typeof parsed === 'string' ? parsePortRange(DEFAULT_PORT_RANGE) as { start: number; end: number } : parsed;
    const size = Number.isInteger(blockSize) && blockSize >= 1 ? blockSize : DEFAULT_PORT_BLOCK;
    for (let base = range.start; base + size - 1 <= range.end; base += size) {
      if (this.held.has(base)) continue;
      // Reserved before the probe: two forks starting at once must not both take this block.
      this.held.set(base, forkId);
      if (await isFree(base)) return base;
      this.held.delete(base);
    }
    return undefined;
  }

  release(forkId: string): void {
    for (const [base, owner] of this.held) if (owner === forkId) this.held.delete(base);
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}
