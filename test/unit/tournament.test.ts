// The tournament's pure parts: the verify ranking, the judge's answer, and hunks (numbering, overlap
// conflicts, the combined patch's line numbers, checked by real `git apply`).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseJudgeAnswer, rankByVerify } from '../../src/common/tournament';
import type { AttemptOutcome } from '../../src/common/tournament';
import { chooseHunks, combinedPatch, findConflicts, parsePatch } from '../../src/runtime/fork/tournament/hunks';

const verify = (passed: boolean) => ({ command: 'npm test', exitCode: passed ? 0 : 1, passed, outputTail: '', durationMs: 10 });
const attempt = (n: number, completed: boolean, passed?: boolean): AttemptOutcome =>
  ({ forkId: `f${n}`, attempt: n, completed, changedFiles: 1, ...(passed === undefined ? {} : { verify: verify(passed) }) });

describe('tournament ranking', () => {
  it('one passing attempt wins; none is no winner; several go to the judge', () => {
    assert.deepEqual(rankByVerify([attempt(1, true, false), attempt(2, true, true)]).kind, 'winner');
    const none = rankByVerify([attempt(1, true, false), attempt(2, false)]);
    assert.equal(none.kind, 'none');
    const judge = rankByVerify([attempt(1, true, true), attempt(2, true, true), attempt(3, false)]);
    assert.deepEqual(judge.kind === 'judge' && judge.candidates, ['f1', 'f2']);
    assert.equal(rankByVerify([attempt(1, true), attempt(2, true)]).kind, 'judge', 'no verify command: every completed attempt is a candidate');
  });

  it('reads the judge\'s lines; a non-candidate or a missing WINNER line is no winner', () => {
    const answer = parseJudgeAnswer('**WINNER:** 2\nREASON: smaller.\nATTEMPT 1: bigger.\nATTEMPT 2: small.', [1, 2]);
    assert.equal(answer.winner, 2);
    assert.equal(answer.reason, 'smaller.');
    assert.equal(answer.perAttempt.get(1), 'bigger.');
    assert.equal(parseJudgeAnswer('WINNER: none\nREASON: a tie.', [1, 2]).winner, null);
    assert.match(parseJudgeAnswer('WINNER: 3', [1, 2]).reason, /not a candidate/);
    assert.match(parseJudgeAnswer('I like both.', [1, 2]).reason, /no WINNER line/);
  });
});

describe('tournament hunks', () => {
  let dir: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  const base = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
  const patchOf = (content: string) => {
    fs.writeFileSync(path.join(dir, 'f.txt'), content);
    const patch = git('diff', '--no-color', 'f.txt');
    git('checkout', '--', 'f.txt');
    return patch;
  };
  const edit = (lines: Record<number, string | null>) => base.split('\n').flatMap((l, i) => (i + 1 in lines ? (lines[i + 1] === null ? [] : [lines[i + 1]!]) : [l])).join('\n');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-hunks-'));
    git('init', '-q');
    fs.writeFileSync(path.join(dir, 'f.txt'), base);
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'base');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('merges hunks of two attempts with shifted line numbers that git applies', () => {
    // Attempt a: grows the file early (two lines for l2) and changes l25; attempt b: deletes l12.
    const a = parsePatch(patchOf(edit({ 2: 'l2a\nl2b', 25: 'l25a' })));
    const b = parsePatch(patchOf(edit({ 12: null })));
    assert.deepEqual(a[0].hunks.map(h => h.number), [1, 2]);
    const chosen = chooseHunks([{ label: 'a', files: a, numbers: [1] }, { label: 'b', files: b, numbers: 'all' }]);
    assert.deepEqual(findConflicts(chosen), []);
    const patch = combinedPatch(chosen);
    fs.writeFileSync(path.join(dir, 'p.diff'), patch);
    git('apply', 'p.diff');
    assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), edit({ 2: 'l2a\nl2b', 12: null }));
  });

  it('hunks of two attempts over the same lines conflict; an unknown hunk number is an error', () => {
    const a = parsePatch(patchOf(edit({ 10: 'A' })));
    const b = parsePatch(patchOf(edit({ 11: 'B' })));
    const conflicts = findConflicts(chooseHunks([{ label: 'a', files: a, numbers: [1] }, { label: 'b', files: b, numbers: [1] }]));
    assert.equal(conflicts.length, 1);
    assert.match(conflicts[0].reason, /both change lines/);
    assert.throws(() => chooseHunks([{ label: 'a', files: a, numbers: [4] }]), /a has no hunk 4 \(it has 1\)/);
  });
});
