// The demo "model" over the real SDK, and the serve.js CLI as a real child process.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Anthropic } from '@anthropic-ai/sdk';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { renderDirective } from '../../src/runtime/fork/history/directive';
import { demoResponder } from '../fakes/demoScript';
import { MODEL } from '../fakes/testHttp';

const TOOLS: Anthropic.Tool[] = [
  { name: 'list_files', description: 'List files', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
  { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
];
const FILES: Record<string, string> = { 'README.md': '# Demo project\nA small example.\nThird line.\nFourth line.' };

function runTool(use: Anthropic.ToolUseBlock): string {
  const input = use.input as { path?: string };
  if (use.name === 'list_files') return 'README.md\nsrc/index.ts\npackage.json';
  return (FILES[input.path ?? ''] ?? '').split('\n').map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n');
}

/** A minimal agent loop: stream, run the tools, send the results, until the model ends its turn. */
async function converse(client: Anthropic, messages: Anthropic.MessageParam[], tools = TOOLS, extra: Partial<Anthropic.MessageCreateParams> = {}) {
  const calls: { name: string; input: unknown }[] = [];
  for (;;) {
    const message = await client.messages.stream({ model: MODEL, max_tokens: 4096, tools, messages, ...extra }).finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    if (message.stop_reason !== 'tool_use') {
      return { calls, answer: message.content.filter((b): b is Anthropic.TextBlock => b.type === 'text').map(b => b.text).join('') };
    }
    for (const use of uses) calls.push({ name: use.name, input: use.input });
    messages.push({ role: 'user', content: uses.map(use => ({ type: 'tool_result' as const, tool_use_id: use.id, content: runTool(use) })) });
  }
}

describe('demo responder', () => {
  let server: FakeAnthropic;
  let client: Anthropic;
  beforeEach(async () => {
    server = await startFakeAnthropic({ apiKey: 'demo-key', responder: demoResponder() });
    client = new Anthropic({ apiKey: 'demo-key', baseURL: server.url, maxRetries: 0 });
  });
  afterEach(() => server.close());

  it('lists, reads, then answers in markdown quoting the results', async () => {
    const { calls, answer } = await converse(client, [{ role: 'user', content: 'Please list the files and read README.md' }]);
    assert.deepEqual(calls, [
      { name: 'list_files', input: { pattern: '**/*' } },
      { name: 'read_file', input: { path: 'README.md' } },
    ]);
    assert.match(answer, /\*\*3\*\* files/);
    assert.match(answer, /`README.md` begins with:/);
    assert.match(answer, /> # Demo project\n\s*> A small example\.\n\s*> Third line\./);
    assert.doesNotMatch(answer, /Fourth line/);
  });

  it('summarises the project: lists, reads the README, answers under a summary heading', async () => {
    const { calls, answer } = await converse(client, [{ role: 'user', content: 'summarise the project' }]);
    assert.deepEqual(calls.map(c => c.name), ['list_files', 'read_file']);
    assert.match(answer, /^A summary of the project, from its files and its README:/);
    assert.match(answer, /\*\*3\*\* files/);
    assert.match(answer, /> # Demo project/);
    assert.doesNotMatch(answer, /do not understand/);
  });

  it('is deterministic: the same conversation gives the same answer', async () => {
    const a = await converse(client, [{ role: 'user', content: 'read README.md' }]);
    const b = await converse(client, [{ role: 'user', content: 'read README.md' }]);
    assert.deepEqual(a.calls, [{ name: 'read_file', input: { path: 'README.md' } }]);
    assert.equal(a.answer, b.answer);
  });

  it('echoes any other prompt in a short friendly text', async () => {
    const { calls, answer } = await converse(client, [{ role: 'user', content: 'How are you today?' }]);
    assert.deepEqual(calls, []);
    assert.match(answer, /How are you today\?/);
  });

  it('answers in text when the needed tool is not offered', async () => {
    const { calls, answer } = await converse(client, [{ role: 'user', content: 'list the files' }], [TOOLS[1]]);
    assert.deepEqual(calls, []);
    assert.match(answer, /`list_files`.*not available/);
  });

  it('takes a directive riding with tool results as the prompt (a fork), with thinking on', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'How are you?' }];
    const first = await converse(client, messages, TOOLS, { thinking: { type: 'enabled', budget_tokens: 1024 } });
    assert.deepEqual(first.calls, []);
    // A parent turn that ended in a tool call, closed with a result and the fork's directive.
    messages.push({ role: 'user', content: 'read README.md' });
    const parent = await client.messages.stream({ model: MODEL, max_tokens: 4096, tools: TOOLS, messages, thinking: { type: 'enabled', budget_tokens: 1024 } }).finalMessage();
    const use = parent.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    assert.ok(use);
    messages.push({ role: 'assistant', content: parent.content });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: use.id, content: 'Not run: this is a fork.' },
        { type: 'text', text: 'list the files' },
      ],
    });
    const fork = await converse(client, messages, TOOLS, { thinking: { type: 'enabled', budget_tokens: 1024 } });
    assert.deepEqual(fork.calls, [{ name: 'list_files', input: { pattern: '**/*' } }]);
    assert.match(fork.answer, /\*\*3\*\* files/);
  });

  it('acts on the directive of a worktree fork\'s boilerplate, not on its advice ("Re-read files")', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: renderDirective('list the files and read README.md', { parentRoot: '/work/app', forkRoot: '/work/app.forks/f-1' }) }];
    const fork = await converse(client, messages);
    assert.deepEqual(fork.calls, [{ name: 'list_files', input: { pattern: '**/*' } }, { name: 'read_file', input: { path: 'README.md' } }]);
  });
});

describe('serve.js', () => {
  it('prints its url, answers with the demo model and exits on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(__dirname, '../fakes/serve.js'), '--port', '0', '--demo', '--api-key', 'cli-key'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error('serve.js exited before printing its url')));
      });
      const { url } = JSON.parse(line) as { url: string };
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Anthropic({ apiKey: 'cli-key', baseURL: url, maxRetries: 0 });
      const message = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] });
      assert.match((message.content[0] as Anthropic.TextBlock).text, /hello there/);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  it('refuses unknown arguments with exit code 2', async () => {
    const child = spawn(process.execPath, [join(__dirname, '../fakes/serve.js'), '--bogus'], { stdio: 'ignore' });
    assert.equal(await new Promise(resolve => child.once('exit', resolve)), 2);
  });
});
