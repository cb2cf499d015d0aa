// A fork running when the runtime died is revived by the next client that brings model access. MCP server
// configurations are never written to disk (env and headers may hold secrets), so the revived fork's MCP
// calls wait for a client to supply its servers: the editor does at every (re)connect. With nobody doing so
// within the wait, the call fails saying what to do.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkEvent, forkStart, forkWait } from '../../src/common/protocol/forks';
import { runtimeConfigure } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { RUNTIME_SCRIPT, TEST_KEY, killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { isForkRequest, resultText, stdioServer, toolResults } from './mcpSupport';
import { call, say } from './script';

/** A secret in the server's environment, as a token would be: it must never reach the store (or the log in it). */
const SECRET = 'mcp-env-secret-4f1c9d';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(e => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('runtime: a revived fork and its MCP servers', function () {
  this.timeout(60_000);
  let h: Harness;
  let bare: RuntimeClient | undefined;

  afterEach(async () => {
    await bare?.close().catch(() => undefined);
    bare = undefined;
    await h.dispose();
  });

  /** A parent that called the MCP tool, and its fork killed mid-request with the runtime. */
  async function forkInterruptedByCrash(): Promise<{ forkId: string; release: () => void }> {
    h = await startHarness({ config: { approvalMode: 'auto', mcpServers: [stdioServer({ env: { MCP_TEST_SECRET: SECRET } })] } });
    let release!: () => void;
    const gate = new Promise<void>(resolve => (release = resolve));
    let forkRequests = 0;
    const parent = [call(['mcp__everything__echo', { message: 'parent' }]), say('echoed')];
    h.fake.setResponder(async r => {
      if (!isForkRequest(r)) return parent.shift() ?? say('parent: nothing scripted');
      forkRequests++;
      // The fork's first request is held until the runtime that sent it is gone.
      if (forkRequests === 1) await gate;
      if (toolResults(r).length === 0) return call(['mcp__everything__echo', { message: 'revived fork' }]);
      return say(`Scope: echo.\nResult: ${resultText(toolResults(r)[0])}`);
    });
    const { sessionId } = await h.send('echo');
    const launched = new Promise<ReceivedRequest>(resolve => h.fake.onRequest(r => isForkRequest(r) && resolve(r)));
    const { id: forkId } = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'echo again', isolation: 'shared' });
    await launched;
    await killRuntime(h.runtimePid());
    return { forkId, release };
  }

  /** A client like `fork-agents list`: model access, no MCP servers. Its configure revives the fork. */
  async function connectBare(env: NodeJS.ProcessEnv = {}): Promise<RuntimeClient> {
    const socket = await connectOrStart({ storeDir: h.storeDir, runtimeScript: RUNTIME_SCRIPT, idleExitMs: 60_000, env });
    const client = await connectRpc(socket, 'bare-test');
    await sendRequest(client.endpoint, runtimeConfigure, { apiKey: TEST_KEY, baseUrl: h.fake.url, approvalMode: 'auto' });
    return client;
  }

  it('revived by a client without MCP servers, its call waits and runs once the editor reconnects with them', async () => {
    const { forkId, release } = await forkInterruptedByCrash();
    release();
    bare = await connectBare();
    const calling = new Promise<void>(resolve => onNotification(bare!.endpoint, forkEvent, p => {
      if (p.forkId === forkId && p.event.type === 'tool_call' && p.event.name === 'mcp__everything__echo') resolve();
    }));
    await calling;
    // The call is waiting for its server now; the editor-like harness client configures it on reconnect.
    await h.reconnect();
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId });
    assert.equal(done.state, 'completed', done.error);
    const last = h.fake.requests.filter(isForkRequest).at(-1)!;
    const [result] = toolResults(last);
    assert.equal(result.is_error, undefined, resultText(result));
    assert.equal(resultText(result), 'Echo: revived fork');
    const files = filesUnder(h.storeDir).filter(f => fs.statSync(f).isFile());
    assert.ok(files.length > 0);
    for (const file of files) assert.ok(!fs.readFileSync(file).includes(SECRET), `${file} holds the MCP server's env secret`);
  });

  it('with no client supplying the server within the wait, the call fails saying what to do', async () => {
    const { forkId, release } = await forkInterruptedByCrash();
    release();
    bare = await connectBare({ FORK_AGENTS_MCP_CONFIG_WAIT_MS: '300' });
    const done = await sendRequest(bare.endpoint, forkWait, { forkId });
    assert.equal(done.state, 'completed', done.error);
    const [result] = toolResults(h.fake.requests.filter(isForkRequest).at(-1)!);
    assert.equal(result.is_error, true);
    assert.match(resultText(result), /^MCP server "everything" is not configured in this runtime \(it was restarted, and no client connected since has supplied it; waited 300 ms\): its tool echo did not run\./);
    assert.match(resultText(result), /open the workspace in the editor, or run fork-agents fork\/send\/chat .*~\/\.config\/fork-agents\/mcp\.json, or --trust-mcp/);
  });
});
