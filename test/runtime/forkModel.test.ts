// A fork on another model (docs/design.md §4.5): fork/start takes `model`; the fork's requests name it, its first
// request reads nothing of the parent's prompt cache (the cache is per model) while a default fork's reads
// nearly all of it; the model is in the fork's header, bootstrap and summary, and revival keeps it.
// Plus mcp/state: the runtime tells its clients when an MCP server fails and comes back.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { McpServerStatus } from '../../src/common/protocol/mcp';
import { mcpState, sessionList } from '../../src/common/protocol/runtime';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { cliRunner, lastJson } from './cliRunner';
import { startHarness, TEST_KEY, useSharedHarness } from './harness';
import type { Harness } from './harness';
import { killedMidFork, REVIVED_REPORT } from './killedMidFork';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');
const directiveOf = (r: ReceivedRequest) => /DIRECTIVE: ([^\n"]*)/.exec(r.rawBody)?.[1];
const OTHER = 'claude-haiku-4-5';

describe('runtime: a fork on another model', function () {
  this.timeout(60_000);
  const h = useSharedHarness({ fake: { minCacheTokens: 256 } });
  let parentModel: string;

  beforeEach(async () => {
    fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n');
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: test.\nResult: done.') : say('parent answer')));
    const parent = await h.send('parent question');
    parentModel = h.fake.requests[0].body.model;
    sessionId = parent.sessionId;
  });
  let sessionId: string;

  const start = (directive: string, model?: string) =>
    sendRequest(h.client.endpoint, forkStart, { sessionId, directive, isolation: 'shared', ...(model ? { model } : {}) });
  const wait = (forkId: string) => sendRequest(h.client.endpoint, forkWait, { forkId });
  const requestsOf = (directive: string) => h.fake.requests.filter(r => isForkRequest(r) && directiveOf(r) === directive);

  it('an effort the fork\'s model does not take is refused at start, naming it; one it takes goes with the fork', async () => {
    await h.configure({ effort: 'xhigh' });
    const chat = await h.send('an xhigh chat');
    assert.deepEqual(h.fake.requests.at(-1)!.body.output_config, { effort: 'xhigh' });
    const sent = h.fake.requests.length;
    // Sonnet 4.6 takes low, medium, high and max (src/common/models.ts), not xhigh.
    await assert.rejects(
      sendRequest(h.client.endpoint, forkStart, { sessionId: chat.sessionId, directive: 'unfit', isolation: 'shared', model: 'claude-sonnet-4-6' }),
      /claude-sonnet-4-6 would inherit the chat's effort "xhigh".*it takes low, medium, high, max/,
    );
    assert.equal(h.fake.requests.length, sent, 'nothing sent');
    const fit = await sendRequest(h.client.endpoint, forkStart, { sessionId: chat.sessionId, directive: 'fit', isolation: 'shared', model: 'claude-opus-5-5' });
    assert.equal((await wait(fit.id)).state, 'completed');
    assert.deepEqual(requestsOf('fit')[0].body.output_config, { effort: 'xhigh' });
  });

  it('names the chosen model in its requests and starts cold, while the default fork reads the parent\'s cache', async () => {
    assert.notEqual(parentModel, OTHER);
    const same = await start('same model');
    assert.equal(same.model, parentModel);
    assert.equal(same.parentModel, undefined, 'the default fork says nothing of a cold cache');
    await wait(same.id);
    const other = await start('other model', OTHER);
    assert.equal(other.model, OTHER);
    assert.equal(other.parentModel, parentModel);
    const done = await wait(other.id);
    assert.equal(done.state, 'completed');
    assert.equal(done.model, OTHER);

    const [sameFirst] = requestsOf('same model');
    const [otherFirst] = requestsOf('other model');
    assert.equal(sameFirst.body.model, parentModel);
    assert.equal(otherFirst.body.model, OTHER, 'what the fake received names the chosen model');
    const input = (u: NonNullable<ReceivedRequest['usage']>) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    assert.ok(sameFirst.usage!.cache_read_input_tokens / input(sameFirst.usage!) > 0.8, `default fork read ${JSON.stringify(sameFirst.usage)}`);
    assert.equal(otherFirst.usage!.cache_read_input_tokens, 0, 'another model reads nothing of the parent\'s cache');
    assert.ok(otherFirst.usage!.cache_creation_input_tokens > 0, 'it writes its own');
    // The same conversation otherwise (breakpoints may sit elsewhere: each model has its own minimum cacheable prefix).
    const plain = (r: ReceivedRequest) => JSON.stringify(r.body.messages, (key, value) => (key === 'cache_control' ? undefined : value));
    assert.equal(plain(otherFirst), plain(sameFirst).replace('same model', 'other model'));

    const { header } = await h.transcript(other.id);
    assert.equal(header.settings.model, OTHER);
    const records = fs.readFileSync(path.join(h.storeDir, 'sessions', `${other.id}.jsonl`), 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line));
    const bootstrap = records.find(r => r.type === 'bootstrap');
    assert.equal(bootstrap.bootstrap.fork.model, OTHER, 'recorded in the bootstrap');
    assert.equal(bootstrap.bootstrap.fork.parentModel, parentModel);
  });

  it('refuses a malformed model id and treats the parent\'s own model as the default', async () => {
    for (const bad of ['', 'has space', 'x'.repeat(300), 42, ['a']]) {
      await assert.rejects(sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'bad', model: bad as never }), /model/, JSON.stringify(bad));
    }
    const same = await start('explicit parent model', parentModel);
    assert.equal(same.parentModel, undefined);
    assert.equal(same.model, parentModel);
    await wait(same.id);
  });

  it('fork-agents fork --model: the fork runs that model, the CLI says the cache starts cold; a bad id exits 2', async () => {
    const cli = cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => h.storeDir });
    const plain = await cli('fork', '--session', sessionId, '--model', OTHER, '--isolation', 'shared', '--approval', 'auto', 'cli fork');
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /note: Cold cache: claude-haiku-4-5 cannot read the prompt cache of /);
    const forkId = plain.stdout.trim();
    assert.equal((await wait(forkId)).model, OTHER);
    assert.deepEqual(requestsOf('cli fork').map(r => r.body.model), [OTHER]);
    const json = await cli('fork', '--session', sessionId, '--model', OTHER, '--isolation', 'shared', '--approval', 'auto', '--wait', '--json', 'cli json fork');
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual([lastJson(json).state, lastJson(json).model, lastJson(json).parentModel], ['completed', OTHER, parentModel]);
    // A --model that is not a model id is refused before anything connects: test/unit/cli.args.test.ts.
  });

  it('keeps the model when it is revived after the runtime was killed mid-fork', async () => {
    const killed = killedMidFork(h);
    h.fake.setResponder(r => (isForkRequest(r) ? killed.turn() : say('parent answer')));
    const fork = await start('revived on another model', OTHER);
    await killed.killWhenHung();
    const done = await wait(fork.id);
    assert.equal(done.state, 'completed');
    assert.equal(done.report, REVIVED_REPORT);
    assert.equal(done.model, OTHER);
    assert.equal(done.parentModel, parentModel);
    const sent = requestsOf('revived on another model');
    assert.equal(sent.length, 3);
    assert.deepEqual(sent.map(r => r.body.model), [OTHER, OTHER, OTHER], 'the revived run asks the same model');
  });
});

const EVERYTHING = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('runtime: mcp/state', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  it('tells the client when a server starts, fails (with the reason) and comes back', async () => {
    h = await startHarness({ config: { mcpServers: [{ name: 'everything', type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] }] } });
    const seen: McpServerStatus[] = [];
    const waiters: { predicate: (s: McpServerStatus) => boolean; resolve: () => void }[] = [];
    onNotification(h.client.endpoint, mcpState, ({ server }) => {
      seen.push(server);
      for (const w of waiters.filter(w => w.predicate(server))) w.resolve();
    });
    const until = (predicate: (s: McpServerStatus) => boolean) =>
      seen.some(predicate) ? Promise.resolve() : new Promise<void>(resolve => waiters.push({ predicate, resolve }));
    const script: ScriptedTurn[] = [call(['mcp__everything__echo', { message: 'one' }]), say('ok')];
    h.fake.setResponder(() => script.shift() ?? say('nothing scripted'));
    const first = await h.send('echo one');
    await until(s => s.state === 'running' && (s.tools ?? 0) > 0);
    assert.deepEqual(seen.map(s => s.state).filter((s, i, all) => all.indexOf(s) === i).slice(0, 2), ['starting', 'running']);

    process.kill(serverPid(h.runtimePid()), 'SIGKILL');
    await until(s => s.state === 'failed');
    const failed = seen.find(s => s.state === 'failed')!;
    assert.equal(failed.name, 'everything');
    assert.match(failed.error ?? '', /the server stopped/);

    const count = seen.length;
    script.push(call(['mcp__everything__echo', { message: 'two' }]), call(['mcp__everything__echo', { message: 'three' }]), say('back'));
    await h.send('echo again', { sessionId: first.sessionId });
    await until(s => s.state === 'running' && seen.indexOf(s) >= count);
    assert.deepEqual(seen.slice(count).map(s => s.state).slice(0, 2), ['starting', 'running'], 'restarted: starting, then running');
    // Running again: the earlier crash's reason is no longer its status (neither pushed nor listed).
    assert.equal(seen.slice(count).find(s => s.state === 'running')?.error, undefined);
    const listed = (await sendRequest(h.client.endpoint, sessionList, {})).sessions.find(s => s.id === first.sessionId);
    assert.deepEqual(listed?.mcpServers?.map(m => [m.state, m.error]), [['running', undefined]]);
  });
});

function serverPid(runtimePid: number): number {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(runtimePid)], { encoding: 'utf8' });
  const line = out.split('\n').find(l => l.includes('server-everything'));
  assert.ok(line, `no server-everything child of ${runtimePid}:\n${out}`);
  return Number(line.trim().split(/\s+/)[0]);
}
