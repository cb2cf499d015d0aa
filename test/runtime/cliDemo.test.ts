// The CLI as a newcomer meets it: --help / --version, usage errors that name the flag, and the
// demo walkthrough with `--demo` — no key, no test-made server: the CLI starts the detached demo model
// itself, and a fork started that way keeps running after the CLI exits.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRunner, jsonLines, lastJson, stopStoreRuntime } from './cliRunner';
import type { CliRun } from './cliRunner';
import { gitSync, initRepo, read } from './gitRepo';

const SAMPLE = path.resolve(__dirname, '../../../test/sample-workspace');

function stopDemoModel(store: string): void {
  try {
    process.kill((JSON.parse(fs.readFileSync(path.join(store, 'demo-model.json'), 'utf8')) as { pid: number }).pid, 'SIGTERM');
  } catch {
    // none was started
  }
}

describe('cli: conventions and the --demo walkthrough', function () {
  this.timeout(90_000);
  let base: string;
  let store: string;
  let repo: string;
  // No key and no endpoint in the environment: --demo must not need them.
  const cli = cliRunner({ apiKey: '', baseUrl: () => '', store: () => store });

  // One store, so one runtime and one demo model, for the file: the first CLI run starts both, as a user's
  // first command does; each test gets a fresh copy of the sample repository, and its chats and forks are
  // found by their own ids.
  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-demo-')));
    store = path.join(base, 'store');
  });
  let copies = 0;
  beforeEach(() => {
    repo = path.join(base, `sample-${++copies}`);
    fs.cpSync(SAMPLE, repo, { recursive: true });
    initRepo(repo, {});
  });
  after(() => {
    stopStoreRuntime(store);
    stopDemoModel(store);
  });

  it('prints the version with exit 0, and a usage error in one line with exit 2', async () => {
    // Which words are help, version or a usage error, and the help text, are unit-tested
    // (test/unit/cli.args.test.ts); here, the process: what it prints, on which stream, and its exit code.
    const version = await cli('--version');
    assert.equal(version.code, 0);
    assert.equal(version.stdout.trim(), `fork-agents ${JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).version}`);
    const run = await cli('chat', '--cwd', repo, '--frobnicate', 'hi');
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unknown option '--frobnicate'/);
    assert.equal(run.stderr.trim().split('\n').length, 1, 'one line');
  });

  it('walks through chat, tools, a worktree fork that writes a file, review and apply, all with --demo', async () => {
    const ok = (run: CliRun) => {
      assert.equal(run.code, 0, run.stderr);
      return lastJson(run);
    };
    const first = ok(await cli('chat', '--demo', '--cwd', repo, '--json', 'list the files and read README.md'));
    assert.match(first.text, /Here is what I found/);
    assert.match(first.text, /`README\.md` begins with:/);
    assert.match(first.text, /demo model/);
    const session = first.sessionId as string;

    const search = ok(await cli('chat', '--demo', '--cwd', repo, '--session', session, '--json', 'search for sum'));
    assert.match(search.text, /`sum` appears \d+ times?/);
    assert.match(search.text, /src\/math\.js:\d+:/);

    const test = ok(await cli('chat', '--demo', '--cwd', repo, '--session', session, '--approval', 'auto', '--json', 'run npm test'));
    assert.match(test.text, /`npm test` exited with code 0/);
    assert.match(test.text, /# pass 2/);

    const edit = ok(await cli('chat', '--demo', '--cwd', repo, '--session', session, '--approval', 'auto-edit', '--json', 'edit README.md: replace Greeter with Greeter Demo'));
    assert.match(edit.text, /Edited `README\.md`/);
    assert.match(read(repo, 'README.md'), /^# Greeter Demo$/m);
    gitSync(repo, 'checkout', '--', 'README.md');

    // Without a terminal, ask mode denies the write with a reason, and the demo says so.
    const denied = ok(await cli('chat', '--demo', '--cwd', repo, '--session', session, '--json', 'create DENIED.md with no'));
    assert.match(denied.text, /`write_file` failed/);
    assert.equal(fs.existsSync(path.join(repo, 'DENIED.md')), false);

    const fork = ok(await cli('fork', '--demo', '--cwd', repo, '--session', session, '--approval', 'auto-edit', '--wait', '--json', 'create NOTES.md with notes from a fork'));
    assert.equal(fork.state, 'completed');
    assert.match(fork.report, /^Scope: create NOTES\.md with notes from a fork\./);
    assert.match(fork.report, /^Files changed: NOTES\.md$/m);
    assert.equal(fs.existsSync(path.join(repo, 'NOTES.md')), false, 'the fork works in its own worktree');
    const review = ok(await cli('review', '--fork', fork.forkId, '--json'));
    assert.deepEqual(review.files, [{ path: 'NOTES.md', status: 'added' }]);
    ok(await cli('apply', '--fork', fork.forkId, '--json'));
    assert.equal(read(repo, 'NOTES.md'), 'notes from a fork\n');
  });

  it('runs a 3-attempt tournament with --demo: a JSON line per attempt, the judge picks the smallest change, apply --winner lands it', async () => {
    const first = lastJson(await cli('chat', '--demo', '--cwd', repo, '--json', 'hello'));
    const run = await cli('fork', '--demo', '--cwd', repo, '--session', first.sessionId, '--approval', 'auto', '--attempts', '3',
      '--verify', 'test -f NOTES.md', '--wait', '--json', 'create NOTES.md with notes from a tournament');
    assert.equal(run.code, 0, run.stderr);
    const lines = jsonLines(run);
    assert.deepEqual(lines.map(l => l.type), ['attempt', 'attempt', 'attempt', 'result']);
    assert.ok(lines.slice(0, 3).every(l => l.state === 'completed' && l.verify.passed && l.verify.exitCode === 0));
    assert.deepEqual(lines.slice(0, 3).map(l => l.added), [1, 2, 3], 'the demo makes attempts differ');
    const result = lines[3];
    assert.deepEqual(result.forkIds, lines.slice(0, 3).map(l => l.forkId));
    assert.equal(result.winner, lines[0].forkId);
    assert.equal(result.decidedBy, 'judge');
    assert.match(result.reason, /the judge chose attempt 1: the demo judge prefers the smallest change/);
    const compare = await cli('compare', '--group', result.groupId);
    assert.match(compare.stdout, /★ winner/);
    const applied = await cli('apply', '--group', result.groupId, '--winner', '--discard-rest', '--json');
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(read(repo, 'NOTES.md'), 'notes from a tournament\n');
  });

  it('fork --attempts N --wait --json with every attempt failing its verify: the last line has winner null and the reason, exit 1', async () => {
    const first = lastJson(await cli('chat', '--demo', '--cwd', repo, '--json', 'hello'));
    const run = await cli('fork', '--demo', '--cwd', repo, '--session', first.sessionId, '--approval', 'auto', '--attempts', '2',
      '--verify', 'test -f MISSING.md', '--wait', '--json', 'create NOTES.md with notes from a tournament');
    assert.equal(run.code, 1, run.stderr);
    const lines = jsonLines(run);
    assert.deepEqual(lines.map(l => l.type), ['attempt', 'attempt', 'result']);
    assert.deepEqual(lines.slice(0, 2).map(l => [l.attempt, l.state, l.verify.passed, l.verify.exitCode]), [[1, 'completed', false, 1], [2, 'completed', false, 1]]);
    const result = lines[2];
    assert.match(result.groupId, /\S/);
    assert.deepEqual(result.forkIds, lines.slice(0, 2).map(l => l.forkId));
    assert.equal(result.winner, null);
    assert.match(result.reason, /^No winner/);
    assert.match(result.reason, /verify/);
    assert.match(run.stderr, /No winner/);
  });

  // stop's help and usage checks are unit tests (cli.args.test.ts); the exit code 2 of a usage error is checked here.
  it('stop --group stops every attempt of a running tournament', async () => {
    const first = lastJson(await cli('chat', '--demo', '--cwd', repo, '--json', 'hello'));
    const started = await cli('fork', '--demo', '--cwd', repo, '--session', first.sessionId, '--approval', 'auto', '--attempts', '3',
      '--verify', '', '--json', 'run sleep 120');
    assert.equal(started.code, 0, started.stderr);
    const { groupId, forkIds } = lastJson(started);
    assert.equal(forkIds.length, 3);
    // Stop them while they run (attempts 2 and 3 start once the first has written the shared prefix).
    for (let tries = 0; ; tries++) {
      const states = jsonLines(await cli('compare', '--group', groupId, '--json')).slice(0, 3).map(l => l.state);
      if (states.every(state => state === 'running')) break;
      assert.ok(tries < 100, `attempts did not all start: ${states.join(', ')}`);
      await new Promise(resolve => setTimeout(resolve, 200));
    }
    const stopped = await cli('stop', '--group', groupId, '--json');
    assert.equal(stopped.code, 0, stopped.stderr);
    const lines = jsonLines(stopped);
    assert.deepEqual(lines.slice(0, 3).map(l => [l.type, l.state, l.stopped]), [['attempt', 'cancelled', true], ['attempt', 'cancelled', true], ['attempt', 'cancelled', true]]);
    assert.deepEqual(lines[3].stopped, forkIds);
    assert.equal(lines[3].winner, null);
    // What another client sees afterwards: every attempt cancelled, none verified.
    const compared = jsonLines(await cli('compare', '--group', groupId, '--json'));
    assert.deepEqual(compared.slice(0, 3).map(l => [l.state, l.verify]), [['cancelled', null], ['cancelled', null], ['cancelled', null]]);
    const again = await cli('stop', '--group', groupId);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /stopped 0 of 3 attempts/);
    const neither = await cli('stop', '--json');
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /stop needs exactly one of --fork ID or --group ID/);
  });

  it('fans out with "in parallel": the forks keep running after the CLI exits and their reports reach the next turn', async () => {
    const first = lastJson(await cli('chat', '--demo', '--cwd', repo, '--approval', 'auto-edit', '--json', 'in parallel, create A.md with a; create B.md with b'));
    assert.match(first.text, /Started 2 forks/);
    // The answer names the forks for the user; their ids are for the model and `list`.
    assert.doesNotMatch(first.text, /f-[0-9a-f]{8}-|<fork-notification>|continue with other work/);
    // The CLI has exited; the runtime and the demo model carry on. Wait for both forks to end.
    for (let attempt = 0; ; attempt++) {
      const list = await cli('list', '--json');
      const forks = jsonLines(list).filter(x => x.parentSessionId === first.sessionId);
      if (forks.length === 2 && forks.every(f => f.state === 'completed')) break;
      assert.ok(attempt < 100, `forks did not complete: ${list.stdout}`);
      await new Promise(resolve => setTimeout(resolve, 200));
    }
    const next = lastJson(await cli('chat', '--demo', '--cwd', repo, '--session', first.sessionId, '--json', 'thanks'));
    // A fork that ends while the first turn is still going reports into that turn's next request.
    const heard = `${first.text}\n${next.text}`;
    for (const name of ['create A.md with a', 'create B.md with b']) {
      assert.match(heard, new RegExp(`forks? reported: [^\\n]*“${name.replace('.', '\\.')}” finished`));
    }
    assert.doesNotMatch(heard, /\(f-[\w-]+\)|Reports that arrived/);
  });
});
