// What the chat shows of forks (pure parts): names cut at words, +/− lines from a patch, a fork's line in
// the answer, the way back from a report notification to its fork, and a fork approval's title.
import { strict as assert } from 'node:assert';
import { chatForkLine, diffStat, shortText, worktreeState } from '../../src/common/forkDisplay';
import { forkIdsInNotification } from '../../src/common/forkNotification';
import { renderForkNotification } from '../../src/runtime/fork/notification';
import { TurnView } from '../../src/host/chat/eventView';
import { forkApprovalTitle } from '../../src/host/approvalText';
import { escapeMarkdown, forkItemMarkdown } from '../../src/host/chat/forkItem';
import type { ForkSummary } from '../../src/common/forks';

const zero = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const fork = (over: Partial<ForkSummary> = {}): ForkSummary => ({
  id: 'f-8978344f-1111-2222-3333-444455556666', kind: 'fork', name: 'create NOTES.md with notes from a fork', parentSessionId: 's1',
  origin: 'agent', forkTurns: 'all', isolation: 'worktree', root: '/tmp/wt', directive: 'create NOTES.md with notes from a fork',
  state: 'completed', createdAt: '2026-12-01T00:00:00Z', modelTurns: 2, usage: zero, ...over,
});

describe('chat: forks in the answer', () => {
  it('cuts names at a word boundary, never mid-word, and keeps short ones whole', () => {
    assert.equal(shortText('create NOTES.md with notes from a fork'), 'create NOTES.md with notes from a fork');
    assert.equal(shortText('create NOTES.md with notes from a fork about the whole project layout', 40), 'create NOTES.md with notes from a fork…');
    assert.equal(shortText('fix the tests, then run them again and again', 20), 'fix the tests…');
    assert.equal(shortText('src/some/very/long/path/without/any/spaces/at/all.ts', 20), 'src/some/very/long/…');
  });

  it('counts added and removed lines of a patch, not its file headers', () => {
    const patch = ['diff --git a/A.md b/A.md', '--- a/A.md', '+++ b/A.md', '@@ -1,2 +1,2 @@', ' same', '-old', '+new', '+more', ''].join('\n');
    assert.deepEqual(diffStat(patch), { added: 2, removed: 1 });
    assert.deepEqual(diffStat(''), { added: 0, removed: 0 });
  });

  it('reads a fork as name, state (or what became of its changes), model turns, +/− and cost; no id, no path', () => {
    const line = chatForkLine(fork({ cost: { usd: 0.0037, uncachedUsd: 0.01 } }), { added: 1, removed: 0 });
    assert.equal(line, '“create NOTES.md with notes from a fork” completed · 2 model turns · +1 −0 · $0.0037');
    assert.doesNotMatch(line, /f-8978|\/tmp/);
    const applied = fork({ worktree: { path: '/tmp/wt', branch: 'fork/x', base: 'abc', repoRoot: '/r', carried: 0, appliedAt: 'now' } });
    assert.equal(worktreeState(applied), 'applied');
    assert.match(chatForkLine(applied, { added: 0, removed: 0 }), /” applied · 2 model turns · no changes · no price known for this model \(set the fork\.prices setting\)$/);
    assert.match(chatForkLine({ ...applied, model: 'claude-future-9' }), /no price known for claude-future-9 \(set the fork\.prices setting\)$/);
  });

  it('finds the forks whose reports a notification entry carries, and says so as an op', () => {
    const a = fork();
    const b = fork({ id: 'f-00000000-aaaa-bbbb-cccc-dddddddddddd', name: 'say "hi"', state: 'failed', modelTurns: 1 });
    const text = `${renderForkNotification(a)}\n${renderForkNotification(b)}`;
    assert.deepEqual(forkIdsInNotification(text), [a.id, b.id]);
    const view = new TurnView();
    const ops = view.apply({ sessionId: 's1', turnId: 't', event: { type: 'entry', entry: { id: 'n1', kind: 'notification', time: '', message: { role: 'user', content: [{ type: 'text', text }] } } } });
    assert.deepEqual(ops, [{
      kind: 'reports',
      forkIds: [a.id, b.id],
      headlines: [
        { forkId: a.id, name: a.name, state: 'completed', modelTurns: a.modelTurns },
        { forkId: b.id, name: 'say "hi"', state: 'failed', modelTurns: 1 },
      ],
    }]);
    assert.equal(view.lastEntryId, 'n1');
  });

  it('titles a fork approval with the fork once, the tool and its target', () => {
    const name = 'create NOTES.md with notes from a fork';
    assert.equal(forkApprovalTitle({ description: `${name}: Write NOTES.md` }, name), 'Fork “create NOTES.md with notes from a fork” wants to write NOTES.md');
    assert.equal(forkApprovalTitle({ description: 'Run npm test' }, undefined), 'A fork wants to run npm test');
  });
});

describe('chat: a fork item\'s links', () => {
  it('links each action to its command with the fork id, and a name can never become a link', () => {
    const text = forkItemMarkdown('“see [x](command:forkAgents.applyFork?%5B%5D) *now*” running · 0 model turns', [
      { label: 'Open', command: 'forkAgents.openFork', forkId: 'f-1', tooltip: 'Open "it"' },
      { label: 'Stop', command: 'forkAgents.stopFork', forkId: 'f-1', tooltip: 'Stop it' },
    ]);
    assert.equal(text, '\n\n**Fork** “see \\[x\\]\\(command\\:forkAgents\\.applyFork?%5B%5D\\) \\*now\\*” running · 0 model turns\n\n'
      + '[Open](command:forkAgents.openFork?%5B%7B%22forkId%22%3A%22f-1%22%7D%5D "Open it") · [Stop](command:forkAgents.stopFork?%5B%7B%22forkId%22%3A%22f-1%22%7D%5D "Stop it")\n\n');
    assert.equal(escapeMarkdown('a\nb_c'), 'a b\\_c');
  });
});
