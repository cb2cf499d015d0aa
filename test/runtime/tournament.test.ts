// Fork tournaments end to end: the runtime process, the fake model server scripting each attempt, real
// git worktrees and a real verify command run in each attempt's worktree.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onNotification, sendRequest } from '../../src/common/protocol/endpoint';
import { forkEvent, tournamentApply, tournamentCancel, tournamentCompare, tournamentList, tournamentStart, tournamentWait } from '../../src/common/protocol/forks';
import type { TournamentStartParams } from '../../src/common/protocol/forks';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { gitSync, initRepo, isForkRequest, read } from './gitRepo';
import { useSharedHarness } from './harness';
import { call, say } from './script';

const BASE = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const VERIFY = 'grep -q good result.txt';

const attemptOf = (r: ReceivedRequest): number | undefined => {
  const m = /Attempt (\d+) of \d+/.exec(r.rawBody);
  return m ? Number(m[1]) : undefined;
};
const isJudge = (r: ReceivedRequest) => r.rawBody.includes('<fork-judge>');

describe('runtime: fork tournaments', function () {
  this.timeout(90_000);
  const h = useSharedHarness();
  let repo: string;
  let sessionId: string;
  /** Per attempt number: its scripted turns (then a report). */
  let scripts: Map<number, ScriptedTurn[]>;
  let judgeAnswer: string;
  let parentTurns: ScriptedTurn[];

  beforeEach(async () => {
    repo = fs.realpathSync(h.root);
    initRepo(repo, { 'base.txt': BASE, 'result.txt': 'none\n' });
    scripts = new Map();
    parentTurns = [];
    judgeAnswer = 'WINNER: 2\nREASON: attempt 2 is the smaller change.\nATTEMPT 1: correct but larger.\nATTEMPT 2: correct and minimal.';
    h.fake.setResponder(r => {
      if (isJudge(r)) return say(judgeAnswer);
      if (!isForkRequest(r)) return parentTurns.shift() ?? say('parent: ok');
      const attempt = attemptOf(r);
      return (attempt !== undefined && scripts.get(attempt)?.shift()) || say(`Scope: attempt ${attempt}.\nResult: done.`);
    });
    sessionId = (await h.send('hello')).sessionId;
  });

  const start = (extra: Partial<TournamentStartParams> = {}) =>
    sendRequest(h.client.endpoint, tournamentStart, { sessionId, directive: 'make result.txt good', attempts: 3, verify: VERIFY, ...extra });
  const wait = (groupId: string) => sendRequest(h.client.endpoint, tournamentWait, { groupId });
  const writes = (content: string): ScriptedTurn => call(['write_file', { path: 'result.txt', content }]);

  it('one attempt passes its verify command and wins; the others failed it; the winner applies to the main tree', async () => {
    scripts.set(1, [writes('bad one\n')]);
    scripts.set(2, [writes('good two\n')]);
    scripts.set(3, [writes('bad three\n')]);
    const started = await start();
    assert.equal(started.attempts.length, 3);
    assert.deepEqual(started.attempts.map(a => a.tournament?.attempt), [1, 2, 3]);
    assert.ok(started.attempts.every(a => a.isolation === 'worktree' && a.worktree));
    const result = await wait(started.group.id);
    const [one, two, three] = result.attempts;
    assert.deepEqual(result.attempts.map(a => a.state), ['completed', 'completed', 'completed']);
    assert.deepEqual([one.verify?.exitCode, two.verify?.exitCode, three.verify?.exitCode], [1, 0, 1]);
    assert.deepEqual([one.verify?.passed, two.verify?.passed, three.verify?.passed], [false, true, false]);
    assert.equal(result.group.verdict?.winner, two.forkId);
    assert.equal(result.group.verdict?.decidedBy, 'verify');
    assert.match(result.group.verdict!.reason, /Attempt 2 is the only one that passed its verify command/);
    assert.ok(!h.fake.requests.some(isJudge), 'one passing attempt needs no judge');
    assert.deepEqual(two.files, [{ path: 'result.txt', status: 'modified' }]);
    assert.deepEqual([two.added, two.removed], [1, 1]);

    // Each attempt's first request: the directive is the shared, cached prefix; its own note follows it.
    for (const attempt of [1, 2, 3]) {
      const first = h.fake.requests.find(r => isForkRequest(r) && attemptOf(r) === attempt)!;
      const content = first.body.messages.at(-1).content as { type: string; text?: string; cache_control?: unknown }[];
      assert.match(content.at(-1)!.text!, new RegExp(`^<fork-attempt>Attempt ${attempt} of 3`));
      assert.match(content.at(-2)!.text!, /DIRECTIVE: make result.txt good$/);
      assert.ok(content.at(-2)!.cache_control, 'the breakpoint sits on the directive, the end of the shared prefix');
    }
    const directives = [1, 2, 3].map(n => JSON.stringify(h.fake.requests.find(r => isForkRequest(r) && attemptOf(r) === n)!.body.messages.at(-1).content.slice(0, -1)));
    assert.equal(new Set(directives).size, 1, 'the attempts\' requests are identical up to their notes (no worktree path in the directive)');
    const firstOfTwo = h.fake.requests.find(r => isForkRequest(r) && attemptOf(r) === 2)!;
    assert.ok(firstOfTwo.rawBody.includes(`Your root: ${started.attempts[1].worktree!.path}`), 'its own root is in its note');
    // The verify command ran in the worktree, not the main tree: the record is on disk with the group.
    const record = fs.readFileSync(path.join(h.storeDir, 'tournaments', `${started.group.id}.jsonl`), 'utf8');
    assert.equal(record.split('\n').filter(l => l.includes('"type":"verify"')).length, 3);
    assert.equal(read(repo, 'result.txt'), 'none\n');

    const applied = await sendRequest(h.client.endpoint, tournamentApply, { groupId: started.group.id, forkId: two.forkId, discardRest: true });
    assert.deepEqual(applied.applied, ['result.txt']);
    assert.equal(read(repo, 'result.txt'), 'good two\n');
    assert.equal(applied.discarded.length, 3);
    assert.ok(result.attempts.every(a => !fs.existsSync(started.attempts.find(s => s.id === a.forkId)!.worktree!.path)));
  });

  it('when every attempt fails its verify command there is no winner, and the reason says so', async () => {
    for (const n of [1, 2, 3]) scripts.set(n, [writes(`bad ${n}\n`)]);
    const result = await wait((await start()).group.id);
    assert.equal(result.group.verdict?.winner, null);
    assert.equal(result.group.verdict?.decidedBy, 'none');
    assert.match(result.group.verdict!.reason, /No winner: every attempt failed its verify command/);
    assert.ok(result.attempts.every(a => a.verify?.passed === false));
    assert.ok(!h.fake.requests.some(isJudge));
  });

  it('a tie on the verify stage goes to one judge request, which reads the cached prefix and whose reasons are shown', async () => {
    scripts.set(1, [writes('good but long\nand more\n')]);
    scripts.set(2, [writes('good\n')]);
    scripts.set(3, [writes('bad\n')]);
    const result = await wait((await start()).group.id);
    const judges = h.fake.requests.filter(isJudge);
    assert.equal(judges.length, 1);
    const verdict = result.group.verdict!;
    assert.equal(verdict.decidedBy, 'judge');
    assert.equal(verdict.winner, result.attempts[1].forkId);
    assert.match(verdict.reason, /the judge chose attempt 2: attempt 2 is the smaller change/);
    assert.match(verdict.ranking.find(r => r.attempt === 1)!.reason, /judge: correct but larger/);
    assert.deepEqual(verdict.ranking.map(r => r.rank), [2, 1, 3]);
    const prompt = JSON.stringify(judges[0].body.messages.at(-1));
    assert.ok(prompt.includes('good but long') && prompt.includes('+good') && !prompt.includes('+bad'), 'only the candidates are judged');
    assert.ok(!judges[0].body.tool_choice, 'tool_choice stays as the attempts had it (a change would drop the message cache)');
    // Same prefix as the attempts' first requests: identical up to the directive.
    const attemptFirst = h.fake.requests.find(r => isForkRequest(r) && attemptOf(r) === 1)!;
    assert.deepEqual(judges[0].body.messages.slice(0, -1), attemptFirst.body.messages.slice(0, -1));
    assert.deepEqual(judges[0].body.messages.at(-1).content.slice(0, -1), attemptFirst.body.messages.at(-1).content.slice(0, -1));
    assert.ok(judges[0].usage!.cache_read_input_tokens > 0, 'the judge reads the cache');
    assert.ok(result.judgeUsage);
  });

  it('two attempts\' hunks merge into the main tree; overlapping chosen hunks are shown as a conflict and nothing is written', async () => {
    const edit = (from: string, to: string): ScriptedTurn => call(['edit_file', { path: 'base.txt', old_string: `${from}\n`, new_string: `${to}\n` }]);
    scripts.set(1, [edit('line 2', 'line 2 by one'), edit('line 10', 'line 10 by one')]);
    scripts.set(2, [edit('line 18', 'line 18 by two'), edit('line 10', 'line 10 by two')]);
    const group = (await start({ attempts: 2, verify: '' })).group;
    const result = await wait(group.id);
    assert.deepEqual(result.attempts.map(a => a.hunks.length), [2, 2]);
    // Each hunk's text comes with it, so a reader (the panel's picker, compare --json) chooses by reading.
    assert.deepEqual(result.attempts[1].hunks[0].body.split('\n').filter(l => /^[-+]/.test(l)), ['-line 10', '+line 10 by two']);
    assert.equal(result.attempts[1].hunks[0].moreLines, undefined);
    assert.equal(result.group.verify, undefined);
    const groupId = group.id;

    const clash = await sendRequest(h.client.endpoint, tournamentApply, { groupId, hunks: [{ attempt: 1, hunks: [2] }, { attempt: 2, hunks: [1] }] });
    assert.equal(clash.hunkConflicts.length, 1);
    assert.equal(clash.hunkConflicts[0].path, 'base.txt');
    assert.deepEqual(clash.hunkConflicts[0].between, ['attempt 1', 'attempt 2']);
    assert.match(clash.message, /chosen hunks conflict with each other/);
    assert.equal(read(repo, 'base.txt'), BASE, 'nothing written');

    const merged = await sendRequest(h.client.endpoint, tournamentApply, { groupId, hunks: [{ attempt: 1, hunks: [1] }, { attempt: 2, hunks: [2] }] });
    assert.deepEqual(merged.hunkConflicts, []);
    assert.deepEqual(merged.applied, ['base.txt']);
    const lines = read(repo, 'base.txt').split('\n');
    assert.equal(lines[1], 'line 2 by one');
    assert.equal(lines[17], 'line 18 by two');
    assert.equal(lines[9], 'line 10', 'neither attempt\'s line 10 was chosen');
    assert.equal(gitSync(repo, 'diff', '--cached', '--name-only'), '', 'the index is not touched');
  });

  it('the group\'s budget is shared: once reached, every attempt pauses', async () => {
    for (const n of [1, 2, 3]) scripts.set(n, [writes(`step ${n}\n`), writes(`again ${n}\n`)]);
    const group = (await start({ budget: '1tokens', verify: '' })).group;
    const result = await wait(group.id);
    assert.deepEqual(result.attempts.map(a => a.state), ['paused-budget', 'paused-budget', 'paused-budget']);
    assert.ok(result.attempts.every(a => /tournament's budget of 1 tokens for all 3 attempts is reached/.test(a.pausedReason ?? '')), JSON.stringify(result.attempts.map(a => a.pausedReason)));
    assert.equal(result.group.verdict, undefined, 'no verdict while attempts are paused');
  });

  it('stopping the group stops every attempt, its running command included', async () => {
    for (const n of [1, 2, 3]) scripts.set(n, [call(['bash', { command: 'sleep 60' }])]);
    const running = new Set<string>();
    const allRunning = new Promise<void>(resolve => onNotification(h.client.endpoint, forkEvent, ({ forkId, event }) => {
      if (event.type === 'tool_call' && event.name === 'bash') running.add(forkId);
      if (running.size === 3) resolve();
    }));
    const group = (await start({ verify: '' })).group;
    await allRunning;
    const cancelled = await sendRequest(h.client.endpoint, tournamentCancel, { groupId: group.id });
    assert.equal(cancelled.cancelled.length, 3);
    const result = await wait(group.id);
    assert.deepEqual(result.attempts.map(a => a.state), ['cancelled', 'cancelled', 'cancelled']);
    assert.equal(result.group.verdict?.winner, null);
    const compared = await sendRequest(h.client.endpoint, tournamentCompare, { groupId: group.id });
    assert.ok(compared.attempts.every(a => a.verify === undefined), 'a stopped attempt runs no verify command');
  });

  it('the Agent tool\'s attempts field starts a tournament of worktree attempts; its result names the group', async () => {
    parentTurns.push(call(['Agent', { subagent_type: 'fork', description: 'two tries', prompt: 'make result.txt good', attempts: 2 }]), say('parent: started'));
    scripts.set(1, [writes('good\n')]);
    const sent = await h.send('try it twice', { sessionId });
    assert.equal(sent.error, undefined);
    const { groups } = await sendRequest(h.client.endpoint, tournamentList, { parentSessionId: sessionId });
    assert.equal(groups.length, 1);
    assert.equal(groups[0].forkIds.length, 2);
    assert.equal(groups[0].verify, undefined, 'no test script in this repository: no verify command');
    const result = await wait(groups[0].id);
    assert.deepEqual(result.attempts.map(a => a.state), ['completed', 'completed']);
    const toolResult = JSON.stringify((await h.transcript(sessionId)).entries.flatMap(e => e.message.content).filter(b => b.type === 'tool_result'));
    assert.ok(toolResult.includes(`two tries\\" started: 2 attempts in their own git worktrees (group ${groups[0].id}`), toolResult);
  });
});
