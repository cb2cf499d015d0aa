// The runtime's JSON-RPC writer: each message is one socket write (header and body in one Buffer), handed
// to the socket at once, in order. vscode-jsonrpc's SocketMessageWriter writes a message's header, awaits
// the socket's callback, writes the body, awaits again, and only then takes the next message: once the
// socket is backed up, every message costs full event-loop turns. With fifty forks starting, their state
// and event notifications queued ahead of the fork/start answers, and the answers came out together, late.
// The socket keeps the order itself; memory stays bounded because a writer that gets ahead of its reader
// by more than its high-water mark waits for the socket to drain before it writes more. The messages of
// one moment (fifty answers and their state notices) leave in one writev: the socket is corked at the
// first and uncorked on the next tick (Node.js docs, stream, writable.uncork(): "defer calls to
// writable.uncork() using process.nextTick()… allows batching of all writable.write() calls that occur
// within a given Node.js event loop phase", nodejs.org/api/stream.html, read 2026-12-02). One write
// system call per message cost 0.5–1 ms each on a loaded machine, in the runtime's only thread.
import type * as net from 'node:net';
import { AbstractMessageWriter } from 'vscode-jsonrpc/node';
import type { Message, MessageWriter } from 'vscode-jsonrpc/node';

/** Beyond this many bytes not yet taken by the kernel, writes wait for 'drain' (a slow or stuck client). */
export const HIGH_WATER_BYTES = 8 * 1024 * 1024;

interface Waiting { frame: Buffer; msg: Message; resolve(): void; reject(error: Error): void }

export class SocketWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;
  /** Set while the socket is over the high-water mark: messages wait here, in order, for 'drain'. */
  private waiting: Waiting[] | undefined;
  private corked = false;

  constructor(private readonly socket: net.Socket, private readonly highWaterBytes = HIGH_WATER_BYTES) {
    super();
    socket.on('error', error => this.fireError(error));
    socket.on('close', () => {
      const left = this.waiting ?? [];
      this.waiting = undefined;
      for (const w of left) w.reject(new Error('the connection closed'));
      this.fireClose();
    });
  }

  write(msg: Message): Promise<void> {
    // The one JSON encoding, as vscode-jsonrpc's own (JSON.stringify, UTF-8, Content-Length in bytes).
    const body = Buffer.from(JSON.stringify(msg), 'utf8');
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${body.byteLength}\r\n\r\n`, 'ascii'), body]);
    if (this.waiting) {
      const waiting = this.waiting;
      return new Promise<void>((resolve, reject) => waiting.push({ frame, msg, resolve, reject }));
    }
    return this.put(frame, msg) ? Promise.resolve() : Promise.reject(new Error('the connection is closed'));
  }

  /** Hands one frame to the socket (the message counts as written: its delivery is the socket's now). */
  private put(frame: Buffer, msg: Message): boolean {
    if (this.socket.destroyed) {
      this.fireError(new Error('the connection is closed'), msg, ++this.errors);
      return false;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    this.socket.write(frame, error => {
      if (error) this.fireError(error, msg, ++this.errors);
    });
    if (this.socket.writableLength > this.highWaterBytes && !this.waiting) {
      this.waiting = [];
      this.socket.once('drain', () => this.drained());
    }
    return true;
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  private drained(): void {
    const queued = this.waiting ?? [];
    this.waiting = undefined;
    for (let i = 0; i < queued.length; i++) {
      // Over the mark again: the rest wait for the next 'drain', ahead of anything written since.
      if (this.waiting) {
        (this.waiting as Waiting[]).unshift(...queued.slice(i));
        return;
      }
      const next = queued[i];
      if (this.put(next.frame, next.msg)) next.resolve();
      else next.reject(new Error('the connection is closed'));
    }
  }

  end(): void {
    this.socket.end();
  }
}
