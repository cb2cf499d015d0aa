// The CLI and MCP: a repository's .vscode/mcp.json server starts only with --trust-mcp, and
// `fork-agents list` shows the servers a session uses with their state. `fork` and `send` supply the
// session's servers again, so a fork calls them after the runtime restarted (the runtime stores none).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { cliMcpFixture } from './cliMcpFixture';
import { lastJson, stopStoreRuntime } from './cliRunner';
import type { FakeAnthropic, ScriptedTurn } from '../fakes/anthropicServer';
import { exited, killRuntime } from './harness';
import { EVERYTHING, isForkRequest, resultText, toolResults } from './mcpSupport';
import { call, say } from './script';

const runtimePidOf = (store: string) => (JSON.parse(fs.readFileSync(runtimeInfoPath(store), 'utf8')) as { pid: number }).pid;

describe('cli: MCP servers', function () {
  this.timeout(60_000);
  const fixture = cliMcpFixture('fa-cli-mcp-', 'k-cli');
  const { cli } = fixture;
  let fake: FakeAnthropic;
  let store: string;
  let cwd: string;

  beforeEach(() => {
    ({ fake, store } = fixture);
    cwd = path.join(fixture.base, 'work');
    fs.mkdirSync(path.join(cwd, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.vscode', 'mcp.json'), `{
      // a repository's server
      "servers": { "everything": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] } }
    }`);
  });

  it('leaves an untrusted repository server out, starts it with --trust-mcp, and lists its state', async () => {
    fake.setResponder(() => say('ok'));
    const untrusted = await cli('chat', '--cwd', cwd, '--json', 'hello');
    assert.equal(untrusted.code, 0, untrusted.stderr);
    assert.match(untrusted.stderr, /MCP server everything \(.*server-everything.*\) from \.vscode\/mcp\.json not started \(pass --trust-mcp/);
    assert.ok(!fake.requests[0].body.tools.some((t: { name: string }) => t.name.startsWith('mcp__')));

    const trusted = await cli('chat', '--cwd', cwd, '--trust-mcp', '--json', 'hello again');
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.ok(fake.requests[1].body.tools.some((t: { name: string }) => t.name === 'mcp__everything__echo'));
    const { sessionId } = lastJson(trusted);
    const list = await cli('list', '--cwd', cwd);
    assert.equal(list.code, 0, list.stderr);
    const line = list.stdout.split('\n').findIndex(l => l.startsWith(sessionId));
    assert.match(list.stdout.split('\n')[line + 1], /^ {2}MCP: everything \(running, \d+ tools\)$/);
  });

  it('fork and send supply the session\'s MCP servers after the runtime was killed or shut down', async () => {
    const parent: ScriptedTurn[] = [call(['mcp__everything__echo', { message: 'from the chat' }]), say('chatted')];
    const forkScript: ScriptedTurn[] = [call(['mcp__everything__echo', { message: 'from the fork' }]), say('Scope: echo.\nResult: echoed.')];
    fake.setResponder(r => (isForkRequest(r) ? forkScript.shift() : parent.shift()) ?? say('nothing scripted'));
    const lastForkResult = () => toolResults(fake.requests.filter(isForkRequest).at(-1)!)[0];

    const chat = await cli('chat', '--cwd', cwd, '--trust-mcp', '--approval', 'auto', '--json', 'echo');
    assert.equal(chat.code, 0, chat.stderr);
    const { sessionId } = lastJson(chat);
    await killRuntime(runtimePidOf(store));

    const fork = await cli('fork', '--session', sessionId, '--trust-mcp', '--approval', 'auto', '--wait', '--json', 'echo from the fork');
    assert.equal(fork.code, 0, fork.stderr);
    assert.equal(resultText(lastForkResult()), 'Echo: from the fork');
    const { forkId } = lastJson(fork);

    const pid = runtimePidOf(store);
    stopStoreRuntime(store);
    await exited(pid);
    forkScript.push(call(['mcp__everything__echo', { message: 'from send' }]), say('Scope: echo.\nResult: again.'));
    const sent = await cli('send', '--fork', forkId, '--trust-mcp', '--approval', 'auto', '--wait', '--json', 'echo once more');
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(resultText(lastForkResult()), 'Echo: from send');

    // Without --trust-mcp the repository's server is not supplied: the CLI says so before the fork runs.
    await killRuntime(runtimePidOf(store));
    forkScript.push(say('Scope: nothing.\nResult: no tools needed.'));
    const untrusted = await cli('fork', '--session', sessionId, '--approval', 'auto', '--wait', '--json', 'no tools');
    assert.equal(untrusted.code, 0, untrusted.stderr);
    assert.match(untrusted.stderr, new RegExp(`${sessionId} uses MCP server everything, which is not configured here; its tools fail until a client supplies it: .*--trust-mcp`));
  });
});
