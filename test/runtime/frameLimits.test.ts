// An unauthenticated client announcing a huge frame used to make the runtime buffer whatever it sent
// (1.5 GB in the probe, kept). Frames are capped before the token at a few KB and after it at FRAME_BYTES;
// the connection closes at the header, and the runtime's memory stays where it was.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { sessionList } from '../../src/common/protocol/runtime';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { connectRpc } from '../../src/client/rpcClient';
import { connectOrStart } from '../../src/client/launch';
import { socketPathFor } from '../../src/ipc/socketPath';
import { FRAME_BYTES } from '../../src/runtime/frameLimit';
import { RUNTIME_SCRIPT, startHarness } from './harness';
import type { Harness } from './harness';

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** Sends `header`, then 1 MiB chunks until the runtime closes the connection or `maxBytes` went out. */
function flood(socketPath: string, header: string, maxBytes: number, socket = net.connect(socketPath)): Promise<{ closedByRuntime: boolean; sent: number }> {
  return new Promise(resolve => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    let closed = false;
    socket.on('close', () => {
      closed = true;
      resolve({ closedByRuntime: true, sent });
    });
    socket.on('error', () => undefined);
    const pump = () => {
      while (!closed) {
        if (sent >= maxBytes) {
          // Everything went out and the runtime kept the connection: it buffered it all.
          socket.destroy();
          return resolve({ closedByRuntime: false, sent });
        }
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    const start = () => {
      socket.write(header);
      pump();
    };
    if (socket.connecting) socket.once('connect', start);
    else start();
  });
}

describe('runtime: frame limits', function () {
  this.timeout(120_000);
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.dispose());

  it('before the token: a 4 GB Content-Length closes the connection at once, and memory stays put', async () => {
    const pid = h.runtimePid();
    const before = rssOf(pid);
    const result = await flood(socketPathFor(h.storeDir), 'Content-Length: 4000000000\r\n\r\n', 128 * 1024 * 1024);
    assert.equal(result.closedByRuntime, true, `closed after ${result.sent} bytes`);
    assert.ok(result.sent <= 16 * 1024 * 1024, `the runtime closed before taking much: ${result.sent} bytes sent`);
    assert.ok(rssOf(pid) - before < 64 * 1024 * 1024, `memory ${before} → ${rssOf(pid)}`);
    // Others are served as before.
    assert.ok(Array.isArray((await sendRequest(h.client.endpoint, sessionList, {})).sessions));
  });

  it('before the token: a frame header that never ends closes the connection', async () => {
    const result = await flood(socketPathFor(h.storeDir), 'X-Padding: ', 64 * 1024 * 1024);
    assert.equal(result.closedByRuntime, true);
    assert.ok(result.sent <= 16 * 1024 * 1024, `closed within the header: ${result.sent} bytes sent`);
  });

  it('after the token: a frame over the documented limit closes that connection only', async () => {
    const socket = await connectOrStart({ storeDir: h.storeDir, runtimeScript: RUNTIME_SCRIPT });
    const client = await connectRpc(socket, 'frame-limit-test');
    void client;
    const result = await flood(socketPathFor(h.storeDir), `Content-Length: ${FRAME_BYTES + 1}\r\n\r\n`, FRAME_BYTES + 32 * 1024 * 1024, socket);
    assert.equal(result.closedByRuntime, true, `closed after ${result.sent} bytes`);
    assert.ok(result.sent <= 16 * 1024 * 1024, `closed at the header: ${result.sent} bytes sent`);
    assert.ok(Array.isArray((await sendRequest(h.client.endpoint, sessionList, {})).sessions), 'the other client is served');
  });
});
