// The CLI and MCP: a repository's .vscode/mcp.json server starts only with --trust-mcp, and
// `fork-agents list` shows the servers a session uses with their state.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRunner, lastJson, stopStoreRuntime } from './cliRunner';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { say } from './script';

const EVERYTHING = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('cli: MCP servers', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let store: string;
  let cwd: string;
  let savedXdg: string | undefined;
  const cli = cliRunner({ apiKey: 'k-cli', baseUrl: () => fake.url, store: () => store });

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-cli' });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cli-mcp-'));
    store = path.join(base, 'store');
    cwd = path.join(base, 'work');
    fs.mkdirSync(path.join(cwd, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.vscode', 'mcp.json'), `{
      // a repository's server
      "servers": { "everything": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] } }
    }`);
    savedXdg = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = path.join(base, 'config');
  });
  afterEach(async () => {
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
    stopStoreRuntime(store);
    await fake.close();
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
});
