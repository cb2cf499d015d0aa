// MCP servers as tools, with the REAL @modelcontextprotocol/server-everything from npm over stdio: the
// runtime is the MCP client; definitions are fixed in the header and inherited by forks byte for byte.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { sessionList } from '../../src/common/protocol/runtime';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { startHarness, useSharedHarness } from './harness';
import type { Harness } from './harness';
import { isForkRequest, resultText, serverPid, startHttpEverything, stdioServer as server, toolResults } from './mcpSupport';
import type { HttpEverything } from './mcpSupport';
import { call, say } from './script';

describe('runtime: MCP servers (server-everything over stdio)', function () {
  this.timeout(60_000);
  const h = useSharedHarness({ fake: { minCacheTokens: 256 }, config: { approvalMode: 'ask', answersForkApprovals: true, mcpServers: [server()] } });
  let parentScript: ScriptedTurn[];
  let forkScript: ScriptedTurn[];

  beforeEach(async () => {
    parentScript = [];
    forkScript = [];
    h.fake.setResponder(r => (isForkRequest(r) ? forkScript.shift() : parentScript.shift()) ?? say('nothing scripted'));
  });

  it('the parent and a fork call an MCP tool, approval is asked, and the fork repeats the tool definitions byte for byte', async () => {
    parentScript.push(call(['mcp__everything__echo', { message: 'from the parent' }]), say('echoed'));
    const parent = await h.send('echo something');
    assert.equal(parent.text, 'echoed');
    const first = h.fake.requests[0];
    const names: string[] = first.body.tools.map((t: { name: string }) => t.name);
    const mcpNames = names.filter(n => n.startsWith('mcp__'));
    assert.ok(mcpNames.includes('mcp__everything__echo') && mcpNames.includes('mcp__everything__get-sum'), mcpNames.join(','));
    assert.deepEqual(mcpNames, [...mcpNames].sort(), 'MCP tools sorted');
    assert.equal(names.indexOf(mcpNames[0]), names.length - mcpNames.length, 'after the built-in tools');
    const echo = first.body.tools.find((t: { name: string }) => t.name === 'mcp__everything__echo');
    assert.equal(echo.description, 'Echoes back the input string', 'the description as the server gives it');
    assert.deepEqual(Object.keys(echo.input_schema.properties), ['message']);
    assert.equal(resultText(toolResults(h.fake.requests[1])[0]), 'Echo: from the parent');
    assert.deepEqual(h.approvals.map(a => a.toolName), ['mcp__everything__echo'], 'approval asked in ask mode');
    assert.match(h.approvals[0].description, /MCP everything: echo \{"message":"from the parent"\}/);

    const list = await sendRequest(h.client.endpoint, sessionList, {});
    const listed = list.sessions.find(s => s.id === parent.sessionId)!;
    assert.deepEqual(listed.mcpServers?.map(s => [s.name, s.state]), [['everything', 'running']]);

    forkScript.push(call(['mcp__everything__get-sum', { a: 2, b: 40 }]), say('Scope: sum.\nResult: 42.'));
    const { id: forkId } = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'add two numbers', isolation: 'shared' });
    const done = await sendRequest(h.client.endpoint, forkWait, { forkId });
    assert.equal(done.state, 'completed');
    const forkRequests = h.fake.requests.filter(isForkRequest);
    assert.equal(JSON.stringify(forkRequests[0].body.tools), JSON.stringify(h.fake.requests[1].body.tools), 'the fork\'s first request repeats the parent\'s tool definitions');
    assert.match(resultText(toolResults(forkRequests[1])[0]), /42/);
    assert.ok(h.approvals.some(a => a.toolName === 'mcp__everything__get-sum'), 'the fork asked too');
  });

  it('maps images to image blocks; a trusted server needs no approval', async () => {
    await h.configure({ mcpServers: [server({ trusted: true })] });
    parentScript.push(call(['mcp__everything__get-tiny-image', {}]), say('an image'));
    await h.send('show an image');
    const [result] = toolResults(h.fake.requests[1]);
    assert.ok(Array.isArray(result.content));
    assert.ok((result.content as { type: string }[]).some(b => b.type === 'image'), JSON.stringify(result.content).slice(0, 200));
    assert.deepEqual(h.approvals, []);
  });

  it('Restricted Mode refuses MCP tools without asking, a trusted server\'s too, in the parent and in its fork', async () => {
    await h.configure({ approvalMode: 'auto', restricted: true, mcpServers: [server({ trusted: true })] });
    parentScript.push(call(['mcp__everything__echo', { message: 'from the parent' }]), say('refused'));
    const parent = await h.send('echo something');
    const [refused] = toolResults(h.fake.requests[1]);
    assert.equal(refused.is_error, true);
    assert.match(resultText(refused), /not run \(the workspace is in Restricted Mode/);
    forkScript.push(call(['mcp__everything__get-sum', { a: 2, b: 40 }]), say('Scope: sum.\nResult: refused.'));
    const { id: forkId } = await sendRequest(h.client.endpoint, forkStart, { sessionId: parent.sessionId, directive: 'add two numbers', isolation: 'shared' });
    assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId })).state, 'completed');
    const [forkRefused] = toolResults(h.fake.requests.filter(isForkRequest)[1]);
    assert.equal(forkRefused.is_error, true);
    assert.match(resultText(forkRefused), /not run \(the workspace is in Restricted Mode/);
    assert.deepEqual(h.approvals, [], 'nobody was asked');
  });

  it('a killed server gives a clear tool error and comes back on the next call; the definitions do not move', async () => {
    await h.configure({ approvalMode: 'auto' });
    parentScript.push(call(['mcp__everything__echo', { message: 'one' }]), say('ok'));
    const first = await h.send('echo one');
    const pid = serverPid(h.runtimePid());
    process.kill(pid, 'SIGKILL');
    // The runtime notices the exit: session/list reports the server as failed.
    for (;;) {
      const listed = (await sendRequest(h.client.endpoint, sessionList, {})).sessions.find(s => s.id === first.sessionId)!;
      if (listed.mcpServers?.[0].state === 'failed') break;
      // A timer, not setImmediate: back-to-back requests would keep the runtime that must notice the exit busy.
      await new Promise(resolve => setTimeout(resolve, 5));
    }
    parentScript.push(call(['mcp__everything__echo', { message: 'two' }]), call(['mcp__everything__echo', { message: 'three' }]), say('back'));
    const again = await h.send('echo again', { sessionId: first.sessionId });
    assert.equal(again.text, 'back');
    const requests = h.fake.requests;
    const failed = toolResults(requests[requests.length - 2])[0];
    assert.equal(failed.is_error, true);
    assert.match(resultText(failed), /MCP server "everything" stopped: the server stopped.*started again on the next call/);
    assert.equal(resultText(toolResults(requests[requests.length - 1])[0]), 'Echo: three', 'restarted on the next call');
    assert.equal(JSON.stringify(requests.at(-1)!.body.tools), JSON.stringify(requests[0].body.tools));
    assert.notEqual(serverPid(h.runtimePid()), pid, 'a new process');
  });

  it('a server that cannot start leaves a session without its tools and says why in the list', async () => {
    await h.configure({ mcpServers: [server({ name: 'broken', command: path.join(h.root, 'no-such-binary') })] });
    parentScript.push(say('hi'));
    const result = await h.send('hello');
    assert.ok(!h.fake.requests[0].body.tools.some((t: { name: string }) => t.name.startsWith('mcp__broken')));
    const listed = (await sendRequest(h.client.endpoint, sessionList, {})).sessions.find(s => s.id === result.sessionId)!;
    assert.equal(listed.mcpServers?.[0].state, 'failed');
    assert.match(listed.mcpServers?.[0].error ?? '', /could not start/);
  });
});

describe('runtime: MCP over streamable HTTP (server-everything)', function () {
  this.timeout(60_000);
  let h: Harness;
  let remote: HttpEverything;
  let url: string;

  before(async () => {
    remote = await startHttpEverything();
    url = `http://127.0.0.1:${remote.port}/mcp`;
  });
  after(() => remote.close());
  beforeEach(async () => {
    h = await startHarness({ config: { approvalMode: 'auto', mcpServers: [{ name: 'remote', type: 'http', url }] } });
  });
  afterEach(() => h.dispose());

  it('lists the HTTP server\'s tools into the header and calls one', async () => {
    h.fake.enqueue(call(['mcp__remote__get-sum', { a: 20, b: 22 }]), say('done'));
    await h.send('add');
    assert.ok(h.fake.requests[0].body.tools.some((t: { name: string }) => t.name === 'mcp__remote__echo'));
    assert.match(resultText(toolResults(h.fake.requests[1])[0]), /42/);
  });
});
