// A new runtime/configure with another MCP server list: a server the client dropped is stopped
// (its process ends), a changed entry is replaced and starts with its new configuration on the next call.
// Sessions keep the definitions their header fixed; calls to a dropped server fail with a clear tool error.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { onRequest, sendRequest } from '../../src/common/protocol/endpoint';
import { permissionRequest, runtimeConfigure, sessionList } from '../../src/common/protocol/runtime';
import { TEST_KEY, exited, startHarness } from './harness';
import type { Harness } from './harness';
import { resultText, serverPid, serverPids, stdioServer, toolResults } from './mcpSupport';
import { call, say } from './script';


const environOf = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

describe('runtime: MCP servers reconfigured', function () {
  this.timeout(60_000);
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness({ config: { approvalMode: 'auto', mcpServers: [stdioServer()] } });
  });
  afterEach(() => h.dispose());

  it('a changed entry restarts with its new configuration; a removed one is stopped and its calls fail clearly', async () => {
    h.fake.enqueue(call(['mcp__everything__echo', { message: 'one' }]), say('ok'));
    const { sessionId } = await h.send('echo one');
    const first = serverPid(h.runtimePid());

    await h.configure({ mcpServers: [stdioServer({ env: { FORK_TEST_MARK: 'changed' } })] });
    await exited(first);
    h.fake.enqueue(call(['mcp__everything__echo', { message: 'two' }]), say('ok'));
    await h.send('echo two', { sessionId });
    assert.equal(resultText(toolResults(h.fake.requests.at(-1)!)[0]), 'Echo: two');
    const second = serverPid(h.runtimePid());
    assert.notEqual(second, first);
    assert.ok(environOf(second).includes('FORK_TEST_MARK=changed'), 'started with the changed entry');

    await h.configure({ mcpServers: [] });
    await exited(second);
    assert.deepEqual(serverPids(h.runtimePid()), [], 'no server process is left');
    const listed = (await sendRequest(h.client.endpoint, sessionList, {})).sessions.find(s => s.id === sessionId)!;
    assert.deepEqual(listed.mcpServers, [{ name: 'everything', state: 'unconfigured', error: 'removed from the configuration' }]);

    h.fake.enqueue(call(['mcp__everything__echo', { message: 'three' }]), say('gone'));
    assert.equal((await h.send('echo three', { sessionId })).text, 'gone');
    const last = h.fake.requests.at(-1)!;
    const [failed] = toolResults(last);
    assert.equal(failed.is_error, true);
    assert.match(resultText(failed), /^MCP server "everything" was removed from the configuration; its tool echo cannot run\. To use it again, add it back: .*~\/\.config\/fork-agents\/mcp\.json/);
    assert.equal(JSON.stringify(last.body.tools), JSON.stringify(h.fake.requests[0].body.tools), 'the definitions did not move');
    assert.deepEqual(serverPids(h.runtimePid()), [], 'the failed call started nothing');
  });

  it('a server another connected client still lists keeps running when one client drops it', async () => {
    h.fake.enqueue(call(['mcp__everything__echo', { message: 'one' }]), say('ok'));
    const { sessionId } = await h.send('echo one');
    const pid = serverPid(h.runtimePid());
    const other = await h.connectAnother();
    onRequest(other.endpoint, permissionRequest, () => ({ approved: true }));
    try {
      await h.configure({ mcpServers: [] });
      h.fake.enqueue(call(['mcp__everything__echo', { message: 'still' }]), say('ok'));
      await h.send('echo still', { sessionId });
      assert.equal(resultText(toolResults(h.fake.requests.at(-1)!)[0]), 'Echo: still');
      assert.equal(serverPid(h.runtimePid()), pid, 'the same process');
      // Once the other client drops it too, nobody lists it: it stops.
      await sendRequest(other.endpoint, runtimeConfigure, { apiKey: TEST_KEY, mcpServers: [] });
      await exited(pid);
    } finally {
      await other.close();
    }
  });
});
