// What a new user meets when something is wrong, through the built CLI against the fake API: each error says
// what happened and what to do, and nothing it prints is untrue.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { cliRunner, lastJson } from './cliRunner';
import { useCliStore } from './cliStore';
import { say } from './script';

describe('cli: errors on a first run', function () {
  this.timeout(30_000);
  const setup = useCliStore({ apiKey: 'k-first', prefix: 'fa-first-' });
  const cli = setup.cli;
  const cliWithoutKey = cliRunner({ apiKey: '', baseUrl: () => setup.fake.url, store: () => setup.store });

  beforeEach(() => {
    fs.writeFileSync(path.join(setup.work, 'README.md'), '# first run\n');
  });

  it('a fork whose key is rejected fails with the reason, and its cost says nothing was billed (not "no price known")', async () => {
    setup.fake.setResponder(() => say('parent answer'));
    const chat = await cli('chat', '--cwd', setup.work, '--json', 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    setup.fake.setApiKey('another-key');
    const fork = await cli('fork', '--cwd', setup.work, '--session', lastJson(chat).sessionId, '--isolation', 'shared', '--approval', 'auto-edit', '--wait', 'look around');
    assert.equal(fork.code, 1, fork.stderr);
    assert.match(fork.stderr, /API key was rejected/);
    assert.match(fork.stdout, /\(failed\) · cost \$0 \(no model turns\)/);
    const list = await cli('list');
    assert.match(list.stdout, /failed .*cost \$0 \(no model turns\)/);
    // claude-sonnet-5-5 has a price in the built-in table: saying otherwise sends the user to --prices for nothing.
    assert.doesNotMatch(fork.stdout + list.stdout, /no price known/);
  });

  it('send --approval that does not apply says so: capped by the launch mode, or not given for want of a key', async () => {
    setup.fake.setResponder(r => (r.rawBody.includes('<fork-boilerplate>') ? say('Scope: fork.') : say('parent answer')));
    const chat = await cli('chat', '--cwd', setup.work, '--json', 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    const fork = await cli('fork', '--cwd', setup.work, '--session', lastJson(chat).sessionId, '--isolation', 'shared', '--approval', 'ask', '--wait', '--json', 'look around');
    assert.equal(fork.code, 0, fork.stderr);
    const { forkId } = lastJson(fork);
    const capped = await cli('send', '--fork', forkId, '--approval', 'auto-edit', '--wait', 'again');
    assert.equal(capped.code, 0, capped.stderr);
    assert.match(capped.stderr, new RegExp(`note: fork ${forkId} continues in ask, the mode it was launched with, not auto-edit; --loosen-approval confirms a looser one`));
    assert.match(capped.stderr, /note: this fork asks before it edits files/, 'and who can answer it');
    const keyless = await cliWithoutKey('send', '--fork', forkId, '--approval', 'auto-edit', '--loosen-approval', '--wait', 'once more');
    assert.equal(keyless.code, 0, keyless.stderr);
    assert.match(keyless.stderr, /note: --approval auto-edit was not applied: this command gave the runtime no key .*continues with the access it last ran with \(ask\)/);
    const loosened = await cli('send', '--fork', forkId, '--approval', 'auto-edit', '--loosen-approval', '--wait', 'and again');
    assert.equal(loosened.code, 0, loosened.stderr);
    assert.doesNotMatch(loosened.stderr, /note:/, 'applied: nothing to say');
  });

  it('no key: chat and fork say how to give one at a terminal, --demo included, and exit 1', async () => {
    setup.fake.setResponder(() => say('parent answer'));
    const chat = await cli('chat', '--cwd', setup.work, '--json', 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    for (const run of [await cliWithoutKey('chat', '--cwd', setup.work, 'hello'), await cliWithoutKey('fork', '--session', lastJson(chat).sessionId, 'look around')]) {
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stderr, 'fork-agents: No Anthropic API key is set: set ANTHROPIC_API_KEY (or FORK_AGENTS_PROVIDER=bedrock|vertex), or pass --demo for the local demo model, which needs none.\n');
    }
  });

  it('doctor --repair refused by a live runtime says how to stop it: the CLI has ended, the runtime has not', async () => {
    setup.fake.setResponder(() => say('parent answer'));
    const chat = await cli('chat', '--cwd', setup.work, 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    const { pid } = JSON.parse(fs.readFileSync(runtimeInfoPath(setup.store), 'utf8')) as { pid: number };
    const refused = await cli('doctor', '--repair');
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /nothing was changed/);
    assert.match(refused.stderr, new RegExp(`stops by itself after 10 minutes .*\`kill ${pid}\``));
  });
});
