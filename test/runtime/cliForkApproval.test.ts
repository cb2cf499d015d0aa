// A fork started from the CLI without --approval: it takes its chat's mode (never looser), and `fork --wait`
// on a terminal (a pty from script(1)) asks its approvals the way chat does, a tournament's attempts' too.
// All through the built CLI.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jsonLines, lastJson, runOnTerminal } from './cliRunner';
import { useCliStore } from './cliStore';
import { initRepo } from './gitRepo';
import { call, say } from './script';

const KEY = 'k-cli-fork';
/** Short, so a call nobody can answer is refused within the test; the refusal names the wait. */
const APPROVAL_WAIT_MS = '1500';

describe('runtime: CLI fork approvals', function () {
  this.timeout(60_000);
  const cliStore = useCliStore({
    apiKey: KEY, prefix: 'fa-cli-forkappr-', terminal: true, extra: () => ({ FORK_AGENTS_APPROVAL_WAIT_MS: APPROVAL_WAIT_MS }),
  });
  const { cli } = cliStore;

  /** A chat turn with `approval`; returns its session id. */
  async function chat(approval: string): Promise<string> {
    cliStore.fake.enqueue(say('hello'));
    const run = await cli('chat', '--cwd', cliStore.work, '--approval', approval, '--json', 'hi');
    assert.equal(run.code, 0, run.stderr);
    return lastJson(run).sessionId as string;
  }

  /** The tool result the fork's model got back for its call (the second request's last message). */
  function toolResultText(): string {
    const last = cliStore.fake.requests.at(-1)!.body.messages.at(-1);
    return JSON.stringify(last.content);
  }

  it('a chat run with auto: its fork, started without --approval, runs a command without waiting for an editor', async () => {
    const sessionId = await chat('auto');
    cliStore.fake.enqueue(call(['bash', { command: 'touch ran-unasked' }]), say('done'));
    const run = await cli('fork', '--session', sessionId, '--isolation', 'shared', '--wait', '--json', 'run it');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lastJson(run).state, 'completed');
    assert.ok(fs.existsSync(path.join(cliStore.work, 'ran-unasked')), `the command ran; the model got: ${toolResultText()}`);
  });

  it('a chat run with auto-edit: its fork is no looser — a command is refused without a terminal or an editor', async () => {
    const sessionId = await chat('auto-edit');
    cliStore.fake.enqueue(call(['write_file', { path: 'edited.txt', content: 'x' }], ['bash', { command: 'touch ran-looser' }]), say('done'));
    // Without the OS sandbox: under auto-edit a sandboxed command runs unasked (its .git and the rest of the disk kept out).
    const run = await cli('fork', '--session', sessionId, '--isolation', 'shared', '--sandbox', 'off', '--wait', '--json', 'edit and run');
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.existsSync(path.join(cliStore.work, 'edited.txt')), `the edit ran (auto-edit): ${toolResultText()}`);
    assert.ok(!fs.existsSync(path.join(cliStore.work, 'ran-looser')), 'the command did not run');
    assert.match(toolResultText(), /no editor was connected to approve it within 2 s/);
  });

  it('fork --wait on a terminal asks y/N, as chat does; "y" runs the command', async () => {
    const sessionId = await chat('ask');
    cliStore.fake.enqueue(call(['bash', { command: 'touch ran-approved' }]), say('done'));
    const { code, output, answered } = await runOnTerminal(['fork', '--session', sessionId, '--isolation', 'shared', '--wait', 'run it'],
      cliStore.terminalEnv(), 'y');
    assert.ok(answered, `the terminal was asked: ${JSON.stringify(output)}`);
    assert.match(output, /Allow bash \(runs a command\): .*touch ran-approved/);
    assert.ok(fs.existsSync(path.join(cliStore.work, 'ran-approved')), `approved at the terminal, it ran: ${toolResultText()}`);
    assert.equal(code, 0, output);
  });

  it('a tournament\'s fork --attempts 2 --wait on a terminal asks each attempt\'s approval y/N, one at a time, naming the attempt', async () => {
    initRepo(cliStore.work, { 'README.md': 'a project\n' });
    const sessionId = await chat('ask');
    // Each attempt calls bash once, then reports; both complete, so the judge is asked and picks attempt 1.
    cliStore.fake.setResponder(req => {
      if (req.rawBody.includes('You are the judge of a fork tournament')) return say('WINNER: 1\nREASON: both ran it; the first is as good');
      return JSON.stringify(req.body.messages.at(-1).content).includes('tool_result') ? say('ran it') : call(['bash', { command: 'touch ran-approved' }]);
    });
    const { code, output, questions } = await runOnTerminal(['fork', '--session', sessionId, '--attempts', '2', '--verify', '', '--wait', '--json', 'run it'],
      cliStore.terminalEnv(), 'y');
    assert.equal(questions, 2, `two questions at the terminal: ${JSON.stringify(output)}`);
    assert.match(output, /attempt 1 of 2: Allow bash \(runs a command\): .*touch ran-approved/);
    assert.match(output, /attempt 2 of 2: Allow bash \(runs a command\): .*touch ran-approved/);
    const lines = jsonLines(output, { objectsOnly: true });
    const attempts = lines.filter(line => line.type === 'attempt');
    assert.equal(attempts.length, 2, output);
    for (const attempt of attempts) {
      assert.equal(attempt.state, 'completed', JSON.stringify(attempt));
      assert.deepEqual(attempt.files.map((f: { path: string }) => f.path), ['ran-approved'], `approved at the terminal, attempt ${attempt.attempt} ran it`);
    }
    assert.equal(code, 0, output);
  });

  // fork --help's words on --approval: test/unit/cli.args.test.ts.
});
