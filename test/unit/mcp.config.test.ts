import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeEntry, fingerprint, parseMcpConfig, resolveEntry } from '../../src/client/mcpConfig';
import { cliMcpServers } from '../../src/cli/mcpServers';
import { mapMcpContent, MAX_RESULT_CHARS } from '../../src/runtime/mcp/results';
import { mcpToolName, parseMcpToolName } from '../../src/runtime/mcp/hub';

const SAMPLE = `{
  // VS Code's format, comments and trailing commas allowed
  "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
  "servers": {
    "everything": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": { "DIR": "\${workspaceFolder}/data" } },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
    "bad": { "type": "stdio" },
  },
}`;

describe('MCP: configuration', () => {
  it('reads .vscode/mcp.json (JSONC), reports bad entries and keeps the good ones', () => {
    const file = parseMcpConfig(SAMPLE, 'mcp.json');
    assert.deepEqual(file.servers.map(s => s.name), ['everything', 'remote']);
    assert.match(file.problems[0], /server "bad": a stdio server needs a "command"/);
    assert.equal(describeEntry(file.servers[0]), 'npx -y @modelcontextprotocol/server-everything');
    assert.equal(describeEntry(file.servers[1]), 'HTTP https://mcp.example.com/mcp');
    assert.match(parseMcpConfig('{ "servers": ', 'x.json').problems[0], /x\.json: not valid JSON/);
  });

  it('fingerprints change with any change of an entry (trust is reset), not with key order', () => {
    const [a] = parseMcpConfig(SAMPLE, 'm').servers;
    assert.equal(fingerprint(a), fingerprint({ args: a.args, command: a.command, env: a.env, name: a.name, type: a.type }));
    assert.notEqual(fingerprint(a), fingerprint({ ...a, args: [...a.args!, '--evil'] }));
    assert.notEqual(fingerprint(a), fingerprint({ ...a, env: { DIR: '/elsewhere' } }));
  });

  it('resolves ${workspaceFolder}, ${env:X}, ${input:id} and an envFile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-cfg-'));
    fs.writeFileSync(path.join(dir, '.env'), 'FROM_FILE=yes\nDIR=overridden-by-env\n');
    const file = parseMcpConfig(SAMPLE, 'm');
    const asked: string[] = [];
    const ctx = { workspaceFolder: dir, env: { HOME_X: 'h' }, inputs: file.inputs, input: async (_i: unknown, id: string) => (asked.push(id), 'secret') };
    const local = await resolveEntry({ ...file.servers[0], envFile: '.env', args: ['${env:HOME_X}'] }, ctx, true);
    assert.deepEqual(local.env, { FROM_FILE: 'yes', DIR: `${dir}/data` });
    assert.deepEqual(local.args, ['h']);
    assert.equal(local.trusted, true);
    const remote = await resolveEntry(file.servers[1], ctx, false);
    assert.deepEqual(remote.headers, { Authorization: 'Bearer secret' });
    assert.deepEqual(asked, ['token']);
  });

  it('CLI: a repository server runs only with --trust-mcp or when its command line is in the user\'s trusted list', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-home-'));
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-repo-'));
    fs.mkdirSync(path.join(repo, '.vscode'));
    fs.writeFileSync(path.join(repo, '.vscode', 'mcp.json'), JSON.stringify({ servers: { tool: { command: 'node', args: ['server.js'] } } }));
    const env = { XDG_CONFIG_HOME: home };
    const none = await cliMcpServers(repo, false, env);
    assert.deepEqual(none.servers, []);
    assert.deepEqual(none.skipped, ['tool (node server.js)']);
    assert.deepEqual((await cliMcpServers(repo, true, env)).servers.map(s => s.name), ['tool']);
    fs.mkdirSync(path.join(home, 'fork-agents'));
    fs.writeFileSync(path.join(home, 'fork-agents', 'mcp.json'), JSON.stringify({ trustedWorkspaceServers: ['node server.js'], trusted: ['tool'] }));
    const listed = await cliMcpServers(repo, false, env);
    assert.deepEqual(listed.servers.map(s => [s.name, s.trusted]), [['tool', true]]);
    fs.writeFileSync(path.join(repo, '.vscode', 'mcp.json'), JSON.stringify({ servers: { tool: { command: 'node', args: ['other.js'] } } }));
    assert.deepEqual((await cliMcpServers(repo, false, env)).servers, [], 'a changed command line is not trusted');
  });
});

describe('MCP: tool names and results', () => {
  it('names tools mcp__<server>__<tool> and parses them back', () => {
    assert.equal(mcpToolName('my server.v2', 'get-sum'), 'mcp__my_server_v2__get-sum');
    assert.deepEqual(parseMcpToolName('mcp__a_b__c__d'), { server: 'a_b', tool: 'c__d' });
    assert.equal(parseMcpToolName('read_file'), undefined);
  });

  it('maps text, images, resource links and cuts large text with a note', () => {
    const blocks = mapMcpContent([
      { type: 'text', text: 'hello' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
      { type: 'resource', resource: { uri: 'mem://x', text: 'inline' } },
    ]);
    assert.deepEqual(blocks, [
      { type: 'text', text: 'hello' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'text', text: 'Resource link: a.txt <file:///a.txt>' },
      { type: 'text', text: 'Resource mem://x:\ninline' },
    ]);
    const big = mapMcpContent([{ type: 'text', text: 'x'.repeat(MAX_RESULT_CHARS + 10) }]);
    assert.equal(big.length, 2);
    assert.equal((big[0] as { text: string }).text.length, MAX_RESULT_CHARS);
    assert.match((big[1] as { text: string }).text, /The result was cut: 100010 characters/);
  });
});
