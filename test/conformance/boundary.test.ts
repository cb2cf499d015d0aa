// Conformance, the fork point and its closing (docs/design.md §4.2 snapshot incl. the current turn, §4.3 closing
// the boundary): forks made mid-turn, on unanswered calls and prompts, and at chosen entries.
import * as assert from 'node:assert/strict';
import { FORK_STARTED_RESULT, NOT_EXECUTED_RESULT } from '../../src/runtime/fork/history/directive';
import type { Entry } from '../../src/common/transcript';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import {
  claudeFork, codexControl, codexTruncation, dshForkProvider, dshSessionFork, dshSnapshotProposal, peerCase, qwenInherited,
} from './peerCase';
import {
  call, entryWithText, firstForkRequest, forksOf, gate, hasText, isForkRequest, lastMessage, messagesOf, parentRequests,
  requestArrives, say, startFork, startPeerHarnessWithNotes, tag, textsOf, waitFork,
} from './peerHarness';
import type { Harness } from './peerHarness';

describe('conformance: fork point and closing', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startPeerHarnessWithNotes();
  });
  after(() => h.dispose());

  const types = (message: { content: { type: string }[] }) => message.content.map(b => b.type);

  describe('a fork the model starts on the parent\'s first turn', () => {
    const t = tag();
    let sessionId: string;
    let forkRequest: ReceivedRequest;
    before(async () => {
      let parentTurns = 0;
      h.fake.setResponder(r => {
        if (isForkRequest(r)) return say(`Scope: ${t} job.\nResult: done.`);
        return ++parentTurns === 1 ? call(['Agent', { subagent_type: 'fork', description: 'job', prompt: `${t} job` }]) : say(`${t} a1`);
      });
      sessionId = (await h.send(`${t} q1`)).sessionId;
      forkRequest = firstForkRequest(h, `${t} job`);
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'a fork made during the parent\'s first turn inherits that turn so far (its request), not an empty history',
      sources: [dshForkProvider('forks an UNSEEDED (fresh) child when the parent has no completed turn')],
      because: 'docs/design.md §4.2: the snapshot is the committed entries "including the current turn so far"; the DeepSeek provider seeds only completed turns (seed 002 proposes what we do).',
    }, async () => {
      assert.ok(hasText(forkRequest, `${t} q1`));
    });

    peerCase({
      verdict: 'same',
      title: 'the Agent call that started the fork is answered, in the fork only, with "Fork started — processing in background" (not an error)',
      sources: [codexControl('spawn_agent_fork_injects_output_for_parent_spawn_call'), claudeFork('buildForkedMessages: placeholder tool_result per tool_use')],
    }, async () => {
      const results = lastMessage(forkRequest).content.filter(b => b.type === 'tool_result');
      assert.equal(results.length, 1);
      assert.equal(results[0].content, FORK_STARTED_RESULT);
      assert.notEqual(results[0].is_error, true);
    });

    peerCase({
      verdict: 'same',
      title: 'the parent\'s committed call is in the fork\'s history, before the result that closes it',
      sources: [codexControl('spawn_agent_fork_flushes_parent_rollout_before_loading_history')],
    }, async () => {
      const messages = messagesOf(forkRequest);
      const callAt = messages.findIndex(m => m.content.some(b => b.type === 'tool_use' && b.name === 'Agent'));
      const resultAt = messages.findIndex(m => m.content.some(b => b.type === 'tool_result'));
      assert.ok(callAt >= 0 && resultAt === callAt + 1);
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'an open call is closed by one user message: placeholder results then the directive, with no synthetic assistant reply',
      sources: [qwenInherited('closes open function calls before the child task user turn'), claudeFork('buildForkedMessages')],
      because: 'docs/design.md §4.3: the directive rides in the same user message as the placeholder results (constant texts; it also keeps earlier thinking blocks, §4.5). Qwen\'s later builder answers "Delegated to child agent." and adds a model "Acknowledged." before the task.',
    }, async () => {
      const messages = messagesOf(forkRequest);
      assert.deepEqual(messages.map(m => m.role), ['user', 'assistant', 'user']);
      assert.deepEqual(types(messages[2]), ['tool_result', 'text']);
      assert.match(messages[2].content[1].text!, new RegExp(`DIRECTIVE: ${t} job$`));
    });

    peerCase({
      verdict: 'same',
      title: 'the parent\'s own history is untouched by the fork: its call gets the real Agent result (the fork\'s id), no placeholder, no directive',
      sources: [dshSnapshotProposal('immutable parent history, continued parent execution'), codexControl('spawn_agent_can_fork_parent_thread_history')],
    }, async () => {
      const { entries } = await h.transcript(sessionId);
      const parentText = JSON.stringify(entries);
      assert.ok(!parentText.includes('<fork-boilerplate>') && !parentText.includes(FORK_STARTED_RESULT));
      const result = entries.flatMap(e => e.message.content).find(b => b.type === 'tool_result')!;
      const [job] = await forksOf(h, sessionId);
      assert.match(String(result.type === 'tool_result' && result.content), new RegExp(`started in the background \\(id ${job.id}\\)`));
      assert.ok(hasText(parentRequests(h, `${t} q1`).at(-1)!, `${t} q1`));
    });
  });

  describe('a batch [read_file, Agent fork] in one assistant message', () => {
    const t = tag();
    let forkRequest: ReceivedRequest;
    before(async () => {
      let parentTurns = 0;
      h.fake.setResponder(r => {
        if (isForkRequest(r)) return say('Scope: batch.\nResult: done.');
        return ++parentTurns === 1
          ? call(['read_file', { path: 'notes.md' }], ['Agent', { subagent_type: 'fork', description: 'batch', prompt: `${t} batch` }])
          : say(`${t} a1`);
      });
      await h.send(`${t} q1`);
      forkRequest = firstForkRequest(h, `${t} batch`);
    });
    const results = () => lastMessage(forkRequest).content.filter(b => b.type === 'tool_result');

    peerCase({
      verdict: 'same',
      title: 'every unanswered call of the batch gets a result in the fork; the parent\'s other calls say they stay with the parent',
      sources: [dshSnapshotProposal('unanswered calls in a batch: child-only TOOL_EXECUTION_NOT_INHERITED results')],
    }, async () => {
      assert.deepEqual(results().map(b => b.content), [NOT_EXECUTED_RESULT, FORK_STARTED_RESULT]);
      assert.ok(!forkRequest.rawBody.includes('pelican'), 'the read the parent owns was not run for the fork');
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'only the fork call gets "Fork started"; a sibling call in the batch gets "not executed in this fork"',
      sources: [claudeFork('buildForkedMessages: identical FORK_PLACEHOLDER_RESULT for every tool_use')],
      because: 'docs/design.md §4.3: the Agent fork call(s) get "Fork started — processing in background", any other call a fixed "not executed in this fork — the parent owns this call; do not retry it" (both constants, so siblings still share the prefix).',
    }, async () => {
      assert.equal(results()[0].content, NOT_EXECUTED_RESULT);
      assert.equal(results()[1].content, FORK_STARTED_RESULT);
    });
  });

  describe('a parent whose second turn is in flight after a tool result', () => {
    const t = tag();
    const release = gate();
    let sessionId: string;
    let running: Promise<unknown>;
    let entries: Entry[];
    before(async () => {
      let parentTurns = 0;
      h.fake.setResponder(async r => {
        if (isForkRequest(r)) return say('Scope: in flight.\nResult: done.');
        parentTurns++;
        if (parentTurns === 1) return say(`${t} a1`);
        if (parentTurns === 2) return call(['read_file', { path: 'notes.md' }]);
        await release.opened;
        return say(`${t} a2`);
      });
      sessionId = (await h.send(`${t} q1`)).sessionId;
      const inFlight = requestArrives(h, r => !isForkRequest(r) && hasText(r, `${t} q2`) && r.rawBody.includes('pelican'));
      running = h.send(`${t} q2`, { sessionId });
      await inFlight;
      entries = (await h.transcript(sessionId)).entries;
    });
    after(async () => {
      release.open();
      await running;
    });
    const fork = async (directive: string, atEntryId?: string) => {
      const started = await startFork(h, { sessionId, directive, atEntryId });
      assert.equal((await waitFork(h, started.id)).state, 'completed');
      return firstForkRequest(h, directive);
    };

    peerCase({
      verdict: 'deliberately different',
      title: 'a fork made while the parent\'s turn runs inherits that turn\'s prompt and the tool results already recorded',
      sources: [dshForkProvider('produces an invariant-CLEAN seed: forking mid-turn excludes the open turn')],
      because: 'docs/design.md §4.2: the snapshot includes the current turn so far ("the request, reasoning and tool results already recorded"); §4.3 keeps it a valid conversation.',
    }, async () => {
      const request = await fork(`${t} now`);
      assert.ok(hasText(request, `${t} q2`) && request.rawBody.includes('pelican'));
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'a history ending in tool results gets the directive in the same user message, after the results, with no synthetic assistant reply',
      sources: [qwenInherited('preserves a trailing function response and appends a model boundary')],
      because: 'docs/design.md §4.3: "otherwise the directive is a new user message"; consecutive user entries form one message on the wire (request.ts), so the results and the directive share it. Qwen inserts a model "Acknowledged." first.',
    }, async () => {
      const request = firstForkRequest(h, `${t} now`);
      const last = lastMessage(request);
      assert.deepEqual(types(last), ['tool_result', 'text']);
      assert.match(String(last.content[0].content), /pelican/);
      assert.equal(messagesOf(request).at(-2)!.role, 'assistant');
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'Fork from here may choose an entry of the turn that is still running',
      sources: [codexTruncation('truncate_rollout_after_turn_id_rejects_in_progress_turn (later versions of the same file)')],
      because: 'docs/design.md §4.2: the snapshot for Fork from here is the committed history up to the chosen message; committed entries of a running turn are committed.',
    }, async () => {
      const results = entries.filter(e => e.kind === 'tool_results').at(-1)!;
      const request = await fork(`${t} at-results`, results.id);
      assert.ok(hasText(request, `${t} q2`) && request.rawBody.includes('pelican'));
    });

    peerCase({
      verdict: 'same',
      title: 'Fork from here at an earlier turn while the parent runs takes exactly the history up to that entry',
      sources: [dshSessionFork('forks from an earlier turn boundary even when the source currently has an open tail')],
    }, async () => {
      const request = await fork(`${t} at-a1`, entryWithText(entries, `${t} a1`).id);
      assert.deepEqual(textsOf(request).slice(1, 3), [`${t} q1`, `${t} a1`]);
      assert.ok(!hasText(request, `${t} q2`) && !request.rawBody.includes('pelican'));
    });
  });

  describe('a parent whose last prompt failed unanswered', () => {
    const t = tag();
    let forkRequest: ReceivedRequest;
    before(async () => {
      let parentTurns = 0;
      h.fake.setResponder(r => {
        if (isForkRequest(r)) return say('Scope: unanswered.\nResult: done.');
        return ++parentTurns === 1 ? say(`${t} a1`) : { fault: 'unauthorized' };
      });
      const { sessionId } = await h.send(`${t} q1`);
      const failed = await h.send(`${t} q2`, { sessionId });
      assert.equal(failed.stopReason, 'error');
      const started = await startFork(h, { sessionId, directive: `${t} after-failure` });
      assert.equal((await waitFork(h, started.id)).state, 'completed');
      forkRequest = firstForkRequest(h, `${t} after-failure`);
    });

    peerCase({
      verdict: 'same',
      title: 'an unanswered trailing prompt is dropped from the fork\'s history',
      sources: [qwenInherited('drops an unanswered trailing user turn')],
    }, async () => {
      assert.deepEqual(textsOf(forkRequest).slice(1, 3), [`${t} q1`, `${t} a1`]);
      assert.ok(!forkRequest.rawBody.includes(`${t} q2`));
    });

    peerCase({
      verdict: 'same',
      title: 'after an answer without tool calls the directive is a user message of its own, holding only the directive',
      sources: [claudeFork('buildForkedMessages: no tool_use blocks → a single user message with the directive')],
    }, async () => {
      const last = lastMessage(forkRequest);
      assert.deepEqual(types(last), ['text']);
      assert.match(last.content[0].text!, /^<fork-boilerplate>/);
      assert.equal(messagesOf(forkRequest).at(-2)!.role, 'assistant');
    });
  });

  peerCase({
    verdict: 'same',
    title: 'several unanswered trailing prompts (each failed) are all dropped: none of them merges into the directive',
    sources: [qwenInherited('drops an unanswered trailing user turn')],
  }, async () => {
    const t = tag();
    let parentTurns = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say('Scope: unanswered twice.\nResult: done.');
      return ++parentTurns === 1 ? say(`${t} a1`) : { fault: 'unauthorized' };
    });
    const { sessionId } = await h.send(`${t} q1`);
    for (const prompt of [`${t} q2`, `${t} q3`]) assert.equal((await h.send(prompt, { sessionId })).stopReason, 'error');
    const started = await startFork(h, { sessionId, directive: `${t} after-failures` });
    assert.equal((await waitFork(h, started.id)).state, 'completed');
    const request = firstForkRequest(h, `${t} after-failures`);
    assert.deepEqual(textsOf(request).slice(1, 3), [`${t} q1`, `${t} a1`]);
    assert.ok(!request.rawBody.includes(`${t} q2`) && !request.rawBody.includes(`${t} q3`));
    assert.deepEqual(types(lastMessage(request)), ['text'], 'the directive alone');
  });

  peerCase({
    verdict: 'same',
    title: 'a turn that ended in an error is a valid fork point (Fork from here at its last committed entry)',
    sources: [dshSessionFork('accepts every turn/end reason as an explicit fork boundary')],
  }, async () => {
    const t = tag();
    let parentTurns = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say('Scope: error boundary.\nResult: done.');
      return ++parentTurns === 1 ? call(['read_file', { path: 'notes.md' }]) : { fault: 'unauthorized' };
    });
    const failed = await h.send(`${t} q1`);
    assert.equal(failed.stopReason, 'error');
    const { entries } = await h.transcript(failed.sessionId);
    const last = entries.at(-1)!;
    assert.equal(last.kind, 'tool_results');
    const started = await startFork(h, { sessionId: failed.sessionId, directive: `${t} at-error`, atEntryId: last.id });
    assert.equal((await waitFork(h, started.id)).state, 'completed');
    const request = firstForkRequest(h, `${t} at-error`);
    assert.deepEqual(types(lastMessage(request)), ['tool_result', 'text']);
    assert.equal((await forksOf(h, failed.sessionId)).length, 1);
  });
});
