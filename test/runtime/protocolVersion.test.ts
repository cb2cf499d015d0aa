// docs/design.md §2: a client of another protocol version is refused at initialize; an idle runtime then makes
// way so the new client can start its own, a busy one stays until its work is done.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { SocketMessageReader, SocketMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { PROTOCOL_VERSION, RuntimeErrorCode } from '../../src/common/protocol/runtime';
import { readRuntimeToken } from '../../src/client/launch';
import { socketPathFor } from '../../src/ipc/socketPath';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

async function initializeAs(storeDir: string, protocolVersion: number): Promise<{ code?: number; message: string; data?: { replacing?: boolean } }> {
  const socket = net.connect(socketPathFor(storeDir));
  await new Promise(resolve => socket.once('connect', resolve));
  const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  connection.listen();
  try {
    await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { protocolVersion, clientName: 'old', token: readRuntimeToken(storeDir) } });
    return { message: 'accepted' };
  } catch (error) {
    return error as { code?: number; message: string; data?: { replacing?: boolean } };
  } finally {
    connection.dispose();
    socket.destroy();
  }
}

function exited(pid: number): Promise<void> {
  return new Promise(resolve => {
    const poll = () => {
      try {
        process.kill(pid, 0);
        setTimeout(poll, 20);
      } catch {
        resolve();
      }
    };
    poll();
  });
}

describe('runtime: protocol version', function () {
  this.timeout(30_000);
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.dispose());

  it('an idle runtime refuses another version and stops, so a new one can start', async () => {
    const pid = h.runtimePid();
    const refused = await initializeAs(h.storeDir, 999);
    assert.equal(refused.code, RuntimeErrorCode.protocolMismatch);
    assert.equal(refused.data?.replacing, true);
    assert.match(refused.message, new RegExp(`speaks version ${PROTOCOL_VERSION}, the client 999.*stops now`));
    await exited(pid);
  });

  it('a runtime with a running fork refuses another version and stays', async () => {
    h.fake.enqueue(say('parent'));
    const parent = await h.send('hello');
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    h.fake.setResponder(async () => {
      await gate;
      return say('Scope: done');
    });
    const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'wait' });
    const refused = await initializeAs(h.storeDir, 999);
    assert.equal(refused.data?.replacing, false);
    assert.match(refused.message, /running work/);
    release();
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed', 'the runtime kept serving');
  });
});
