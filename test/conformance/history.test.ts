// Conformance, history selection (docs/design.md §3–§4.2): which parent entries a fork inherits for `all` and
// for a window of N real user turns, stated from the peers' own tests and run through the real runtime.
import * as assert from 'node:assert/strict';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionList } from '../../src/common/protocol/runtime';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { codexTruncation, codexControl, dshSessionFork, peerCase, qwenForkTurns, qwenInherited } from './peerCase';
import {
  call, entryWithText, firstForkRequest, forksOf, gate, hasText, isForkRequest, messagesOf, parentRequests, say, startFork,
  startPeerHarnessWithNotes, tag, textsOf, waitFork, withoutBreakpoints,
} from './peerHarness';
import type { Harness } from './peerHarness';

const STARTUP = /^<system-reminder>\nWorkspace root/;

describe('conformance: history selection', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startPeerHarnessWithNotes();
  });
  after(() => h.dispose());

  /** Parent turns answered from a queue; forks report; anything unscripted answers plainly. */
  const script = (parent: (ScriptedTurn | ((r: ReceivedRequest) => Promise<ScriptedTurn>))[]) => {
    h.fake.setResponder(async r => {
      if (isForkRequest(r)) return say('Scope: conformance.\nResult: done.');
      const next = parent.shift();
      if (!next) return say('parent: nothing scripted');
      return typeof next === 'function' ? next(r) : next;
    });
  };
  const ask = async (sessionId: string | undefined, prompt: string) => (await h.send(prompt, { sessionId })).sessionId;
  /** A new chat of one answered turn: `<t> q1`, answered `<t> a1`. */
  const oneTurnChat = async (t = tag()) => {
    script([say(`${t} a1`)]);
    return { t, sessionId: await ask(undefined, `${t} q1`) };
  };
  /** The texts of a fork's first request, which begins with the startup entry. */
  const textsAfterStartup = (request: ReceivedRequest) => {
    const texts = textsOf(request);
    assert.match(texts[0], STARTUP);
    return texts;
  };
  const fork = async (sessionId: string, directive: string, extra: { forkTurns?: string; atEntryId?: string } = {}) => {
    const started = await startFork(h, { sessionId, directive, ...extra });
    assert.equal((await waitFork(h, started.id)).state, 'completed');
    return { summary: started, request: firstForkRequest(h, directive) };
  };

  describe('one answered turn, forked with all', () => {
    const t = tag();
    let parentLatest: ReceivedRequest;
    let all: ReceivedRequest;
    before(async () => {
      const { sessionId } = await oneTurnChat(t);
      parentLatest = parentRequests(h, `${t} q1`).at(-1)!;
      all = (await fork(sessionId, `${t} all`, { forkTurns: 'all' })).request;
    });

    peerCase({
      verdict: 'same',
      title: '`all` inherits the history as it is: the parent\'s request, then its answer, then the directive',
      sources: [qwenForkTurns('preserves all history when no bounded window is requested')],
    }, async () => {
      const messages = messagesOf(all);
      assert.deepEqual(withoutBreakpoints(messages.slice(0, 1)), withoutBreakpoints(messagesOf(parentLatest)));
      // The answer goes back exactly as the fake sent it, thinking block and signature included: on models
      // that keep thinking, an assistant turn is replayed as returned (preserved-thinking docs, read 2026-12-01).
      const answered = parentLatest.response!.content;
      assert.ok(answered.some(block => block.type === 'text' && block.text === `${t} a1`));
      assert.deepEqual(withoutBreakpoints(messages[1]), withoutBreakpoints({ role: 'assistant', content: answered }));
      assert.equal(messages.length, 3);
    });

    peerCase({
      verdict: 'same',
      title: 'the startup context reaches a fork exactly once, first (never duplicated)',
      sources: [qwenInherited('inherits all conversation history without duplicating startup context')],
      // Qwen's builder leaves startup out because its child adds its own; the request has it once either way.
    }, async () => {
      const texts = textsOf(all);
      assert.equal(texts.filter(text => STARTUP.test(text)).length, 1);
      assert.match(texts[0], STARTUP);
    });
  });

  peerCase({
    verdict: 'same',
    title: 'fork_turns omitted means "all"; an explicit "3" is kept as given',
    sources: [qwenForkTurns('defaults to all and normalizes explicit values')],
  }, async () => {
    const { t, sessionId } = await oneTurnChat();
    const omitted = await fork(sessionId, `${t} omitted`);
    assert.equal(omitted.summary.forkTurns, 'all');
    assert.ok(hasText(omitted.request, `${t} q1`) && hasText(omitted.request, `${t} a1`));
    const three = await fork(sessionId, `${t} three`, { forkTurns: '3' });
    assert.equal(three.summary.forkTurns, '3');
  });

  peerCase({
    verdict: 'same',
    title: 'a window counts real user turns, not tool results: "1" after [q1, call, result, a1, q2, a2] is startup + q2 + a2',
    sources: [qwenForkTurns('counts real user turns rather than tool responses')],
  }, async () => {
    const t = tag();
    script([call(['read_file', { path: 'notes.md' }]), say(`${t} a1`), say(`${t} a2`)]);
    const sessionId = await ask(undefined, `${t} q1`);
    await ask(sessionId, `${t} q2`);
    const { request } = await fork(sessionId, `${t} one`, { forkTurns: '1' });
    const texts = textsAfterStartup(request);
    assert.deepEqual(texts.slice(1, 3), [`${t} q2`, `${t} a2`]);
    assert.ok(!request.rawBody.includes(`${t} q1`) && !request.rawBody.includes('pelican'), 'nothing of the first turn');
    assert.ok(!request.rawBody.includes('"tool_result"'), 'no tool traffic of the first turn');
  });

  peerCase({
    verdict: 'same',
    title: 'asking for more real turns than exist inherits all of them (startup included)',
    sources: [
      qwenForkTurns('keeps all available context when fewer turns exist than requested'),
      codexTruncation('truncates_rollout_to_last_n_fork_turns_keeps_full_rollout_when_n_is_large'),
    ],
  }, async () => {
    const { t, sessionId } = await oneTurnChat();
    const { request } = await fork(sessionId, `${t} ten`, { forkTurns: '10' });
    const texts = textsAfterStartup(request);
    assert.deepEqual(texts.slice(1, 3), [`${t} q1`, `${t} a1`]);
  });

  peerCase({
    verdict: 'same',
    title: 'a window over a history with no real turn inherits only the startup entry (Fork from here at startup, "1")',
    sources: [
      qwenForkTurns('returns empty when no real user turns exist after the synthetic prefix'),
      codexTruncation('ignores_session_prefix_messages_when_truncating_rollout_from_start'),
    ],
  }, async () => {
    const { t, sessionId } = await oneTurnChat();
    const { entries } = await h.transcript(sessionId);
    assert.equal(entries[0].kind, 'startup');
    const { request } = await fork(sessionId, `${t} none-real`, { forkTurns: '1', atEntryId: entries[0].id });
    const messages = messagesOf(request);
    assert.equal(messages.length, 1, 'startup and the directive, one user message');
    const texts = textsAfterStartup(request);
    assert.match(texts[1], new RegExp(`DIRECTIVE: ${t} none-real$`));
    assert.ok(!request.rawBody.includes(`${t} q1`));
  });

  describe('a parent whose background fork reported during its second turn', () => {
    const t = tag();
    let sessionId: string;
    before(async () => {
      script([
        call(['Agent', { subagent_type: 'fork', description: 'side job', prompt: `${t} side job`, run_in_background: true }]),
        say(`${t} a1`),
        say(`${t} a2`),
      ]);
      sessionId = await ask(undefined, `${t} q1`);
      const [side] = await forksOf(h, sessionId);
      await waitFork(h, side.id);
      await ask(sessionId, `${t} q2`);
      const { entries } = await h.transcript(sessionId);
      const kinds = entries.slice(entries.indexOf(entryWithText(entries, `${t} q2`))).map(e => e.kind);
      assert.deepEqual(kinds, ['prompt', 'notification', 'response'], 'the report rides after the second prompt');
    });

    peerCase({
      verdict: 'same',
      title: 'a pure <system-reminder> (a fork notification) is no real turn: "1" still starts at the last prompt',
      sources: [
        qwenForkTurns('does not count pure reminders as user turns'),
        codexTruncation('truncates_rollout_to_last_n_fork_turns_counts_trigger_turn_messages (the queued, non-triggering message)'),
      ],
    }, async () => {
      const { request } = await fork(sessionId, `${t} one`, { forkTurns: '1' });
      assert.ok(hasText(request, `${t} q2`), 'the window starts at the prompt, not at the reminder after it');
      assert.ok(request.rawBody.includes('<fork-notification>') && hasText(request, `${t} a2`));
      assert.ok(!request.rawBody.includes(`${t} q1`));
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'a message from another agent never starts a turn: "2" reaches back to q1 across the fork notification',
      sources: [
        codexTruncation('truncates_rollout_to_last_n_fork_turns_counts_trigger_turn_messages (the triggering inter-agent task counts)'),
        codexControl('spawn_agent_fork_last_n_turns_keeps_only_recent_turns'),
      ],
      because: 'docs/design.md §4.6: a fork\'s report reaches the parent as a <fork-notification> reminder, "not a real user turn"; §4.1 counts only real user turns. Codex counts an inter-agent message that triggers a turn.',
    }, async () => {
      const { request } = await fork(sessionId, `${t} two`, { forkTurns: '2' });
      assert.ok(hasText(request, `${t} q1`) && hasText(request, `${t} q2`));
    });
  });

  peerCase({
    verdict: 'same',
    title: 'tool results followed by a pure reminder in one user message are no real turn: "1" keeps the prompt before them',
    sources: [qwenForkTurns('does not count a tool response mixed with a pure reminder')],
  }, async () => {
    const t = tag();
    const reported = gate();
    let parentTurns = 0;
    h.fake.setResponder(async r => {
      if (isForkRequest(r)) {
        if (r.rawBody.includes(`DIRECTIVE: ${t} side`)) await reported.opened;
        return say('Scope: side.\nResult: done.');
      }
      parentTurns++;
      if (parentTurns === 1) return call(['Agent', { subagent_type: 'fork', description: 'side', prompt: `${t} side`, run_in_background: true }]);
      if (parentTurns === 2) {
        // The fork may answer only now, so its report lands after the next tool results.
        reported.open();
        const sessionId = h.events.find(e => e.event.type === 'entry' && JSON.stringify(e.event).includes(`${t} q1`))!.sessionId;
        const [side] = await forksOf(h, sessionId);
        await waitFork(h, side.id);
        return call(['read_file', { path: 'notes.md' }]);
      }
      return say(`${t} a1`);
    });
    const sessionId = await ask(undefined, `${t} q1`);
    const { entries } = await h.transcript(sessionId);
    assert.deepEqual(entries.slice(-3).map(e => e.kind), ['tool_results', 'notification', 'response']);
    const afterTools = parentRequests(h, `${t} q1`).at(-1)!;
    const mixed = messagesOf(afterTools).at(-1)!.content.map(b => b.type);
    assert.deepEqual(mixed.slice(0, 2), ['tool_result', 'text'], 'the request carries them as one user message');
    const { request } = await fork(sessionId, `${t} one`, { forkTurns: '1' });
    assert.ok(hasText(request, `${t} q1`), 'the window starts at q1');
    assert.ok(request.rawBody.includes('pelican'));
  });

  peerCase({
    verdict: 'not expressible',
    title: 'an empty or whitespace-only user message cannot enter a transcript: session/send refuses it and commits nothing',
    sources: [qwenForkTurns('does not count empty user content as a real turn')],
    because: 'session/send refuses an empty prompt (bad input gets a clear error and loses nothing), so no parent history holds one; §3 (a real user turn) would not count it anyway.',
  }, async () => {
    const { sessionId } = await oneTurnChat();
    const before = (await h.transcript(sessionId)).entries.length;
    for (const prompt of ['', '   ', '\n\t']) {
      await assert.rejects(h.send(prompt, { sessionId }), /non-empty prompt/);
    }
    assert.equal((await h.transcript(sessionId)).entries.length, before);
  });

  peerCase({
    verdict: 'not expressible',
    title: 'there is no empty parent session to fork: sessions start with a prompt, and an empty one is refused',
    sources: [dshSessionFork('forks an empty live session as an empty child with lineage metadata')],
    because: 'A session is created by its first session/send, which needs a non-empty prompt; the refused send creates no session.',
  }, async () => {
    const count = async () => (await sendRequest(h.client.endpoint, sessionList, {})).sessions.length;
    const before = await count();
    await assert.rejects(h.send(''), /non-empty prompt/);
    assert.equal(await count(), before);
  });

  peerCase({
    verdict: 'same',
    title: 'rewound turns are gone for forks: neither inherited nor counted in a window',
    sources: [codexTruncation('truncates_rollout_to_last_n_fork_turns_applies_thread_rollback_markers')],
  }, async () => {
    const t = tag();
    script([say(`${t} a1`), say(`${t} a2`), say(`${t} a3`)]);
    const sessionId = await ask(undefined, `${t} q1`);
    await ask(sessionId, `${t} q2`);
    const { entries } = await h.transcript(sessionId);
    await h.send(`${t} q3`, { sessionId, afterEntryId: entryWithText(entries, `${t} a1`).id });
    const { request } = await fork(sessionId, `${t} two`, { forkTurns: '2' });
    assert.deepEqual(textsOf(request).slice(1, 5), [`${t} q1`, `${t} a1`, `${t} q3`, `${t} a3`]);
    assert.ok(!request.rawBody.includes(`${t} q2`) && !request.rawBody.includes(`${t} a2`));
  });

  peerCase({
    verdict: 'same',
    title: 'a rewind that drops nothing (to the last entry) changes nothing for a fork\'s window',
    sources: [codexTruncation('truncates_rollout_to_last_n_fork_turns_applies_thread_rollback_markers (a rollback of zero turns, as in later versions\' fork_turn_positions_ignore_zero_turn_rollback_markers)')],
  }, async () => {
    const t = tag();
    script([say(`${t} a1`), say(`${t} a2`)]);
    const sessionId = await ask(undefined, `${t} q1`);
    const { entries } = await h.transcript(sessionId);
    await h.send(`${t} q2`, { sessionId, afterEntryId: entries.at(-1)!.id });
    const { request } = await fork(sessionId, `${t} two`, { forkTurns: '2' });
    assert.deepEqual(textsOf(request).slice(1, 5), [`${t} q1`, `${t} a1`, `${t} q2`, `${t} a2`]);
  });

  peerCase({
    verdict: 'deliberately different',
    title: 'Fork from here on an answered prompt keeps that prompt (the fork inherits up to and including it), not its answer',
    sources: [codexTruncation('truncates_rollout_from_start_before_nth_user_only (the cut falls before the chosen user message)')],
    because: 'docs/design.md §4.2: the snapshot for Fork from here is the committed history "up to the chosen message"; §4.3 drops only an unanswered trailing prompt, and this one was answered. Codex cuts before the nth user message.',
  }, async () => {
    const t = tag();
    script([say(`${t} a1`), say(`${t} a2`)]);
    const sessionId = await ask(undefined, `${t} q1`);
    await ask(sessionId, `${t} q2`);
    const { entries } = await h.transcript(sessionId);
    const { request } = await fork(sessionId, `${t} at-q2`, { atEntryId: entryWithText(entries, `${t} q2`).id });
    assert.deepEqual(textsOf(request).slice(1, 4), [`${t} q1`, `${t} a1`, `${t} q2`]);
    assert.ok(!hasText(request, `${t} a2`));
  });

  peerCase({
    verdict: 'same',
    title: 'Fork from here keeps the history up to the chosen entry and nothing after it',
    sources: [codexTruncation('truncates_rollout_from_start_before_nth_user_only')],
  }, async () => {
    const t = tag();
    script([say(`${t} a1`), say(`${t} a2`)]);
    const sessionId = await ask(undefined, `${t} q1`);
    await ask(sessionId, `${t} q2`);
    const { entries } = await h.transcript(sessionId);
    const { request } = await fork(sessionId, `${t} here`, { atEntryId: entryWithText(entries, `${t} a1`).id });
    assert.deepEqual(textsOf(request).slice(1, 3), [`${t} q1`, `${t} a1`]);
    assert.ok(!request.rawBody.includes(`${t} q2`));
  });
});
