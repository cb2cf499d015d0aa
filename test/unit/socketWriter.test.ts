// The runtime's JSON-RPC writer hands each message to the socket at once, in order, so an answer never
// waits behind the socket callbacks of the notifications queued before it; past its high-water mark it
// holds further messages until the socket drains. Over a real Unix socket, read by vscode-jsonrpc's reader.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { SocketMessageReader } from 'vscode-jsonrpc/node';
import type { NotificationMessage } from 'vscode-jsonrpc/node';
import { SocketWriter } from '../../src/runtime/socketWriter';

async function socketPair(): Promise<{ writerSide: net.Socket; readerSide: net.Socket; close(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-writer-'));
  const file = path.join(dir, 's');
  const server = net.createServer();
  const accepted = new Promise<net.Socket>(resolve => server.once('connection', resolve));
  await new Promise<void>(resolve => server.listen(file, resolve));
  const readerSide = net.connect(file);
  const writerSide = await accepted;
  return {
    writerSide,
    readerSide,
    close() {
      readerSide.destroy();
      writerSide.destroy();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const note = (i: number): NotificationMessage => ({ jsonrpc: '2.0', method: 'fork/event', params: { i, text: `ünïcode ${'x'.repeat(1000)}` } });

describe('runtime: the socket writer', () => {
  it('hands messages to the socket while the reader is not reading, holds them past the high-water mark, and delivers all in order', async () => {
    const pair = await socketPair();
    try {
      pair.readerSide.pause();
      // ~1.5 MB: past a 1 MB mark, with nobody reading.
      const count = 1_500;
      const writer = new SocketWriter(pair.writerSide, 1024 * 1024);
      const settled: boolean[] = [];
      const writes = Array.from({ length: count }, (_, i) => writer.write(note(i)).then(() => void (settled[i] = true)));
      // The first 900 (~0.9 MB, more than the kernel's socket buffer) are with the socket although nothing was
      // read: a writer that waits for each write's callback hangs here once the kernel's buffer is full.
      await Promise.all(writes.slice(0, 900));
      await new Promise(resolve => setImmediate(resolve));
      assert.equal(settled[count - 1], undefined, 'the last message waits for the socket to drain');
      const received: number[] = [];
      const reader = new SocketMessageReader(pair.readerSide);
      const all = new Promise<void>(resolve => reader.listen(message => {
        received.push(((message as NotificationMessage).params as { i: number }).i);
        if (received.length === count) resolve();
      }));
      pair.readerSide.resume();
      await Promise.all(writes);
      await all;
      assert.deepEqual(received, Array.from({ length: count }, (_, i) => i), 'every message, once, in order');
      reader.dispose();
    } finally {
      pair.close();
    }
  });

  it('a write after the connection closed is refused and reported', async () => {
    const pair = await socketPair();
    try {
      const writer = new SocketWriter(pair.writerSide);
      const errors: Error[] = [];
      writer.onError(([error]) => void errors.push(error));
      pair.writerSide.destroy();
      await assert.rejects(writer.write(note(1)), /closed/);
      assert.equal(errors.length, 1);
    } finally {
      pair.close();
    }
  });
});
