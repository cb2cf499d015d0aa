// Conformance, what a fork accepts and refuses (docs/design.md §4.1 fork_turns, §4.2 fork points, §1 regular
// subagents, §4.4 the worktree notice), over the protocol, through the Agent tool and from the CLI.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkDiscard, forkList } from '../../src/common/protocol/forks';
import { TEST_KEY } from '../runtime/harness';
import { cliRunner } from '../runtime/cliRunner';
import { initRepo } from '../runtime/gitRepo';
import { claudeFork, codexMultiAgents, codexTruncation, dshSessionFork, peerCase, qwenInherited } from './peerCase';
import {
  call, entryWithText, firstForkRequest, isForkRequest, parentRequests, say, startFork, startPeerHarness, tag, textsOf, waitFork,
} from './peerHarness';
import type { Harness } from './peerHarness';

const ACCEPTED_FORMS = /"all" or a positive whole number/;

describe('conformance: what a fork accepts', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startPeerHarness();
  });
  after(() => h.dispose());

  const cli = (...args: string[]) => cliRunner({ apiKey: TEST_KEY, baseUrl: () => h.fake.url, store: () => h.storeDir })(...args);
  const forkCount = async () => (await sendRequest(h.client.endpoint, forkList, {})).forks.length;

  /** Sends one prompt whose answer makes the given Agent calls; returns the tool results the parent got back. */
  const agentResults = async (t: string, calls: [string, unknown][]) => {
    let turns = 0;
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: x.\nResult: y.') : ++turns === 1 ? call(...calls) : say(`${t} done`)));
    await h.send(`${t} try these`);
    const after = parentRequests(h, `${t} try these`).at(-1)!;
    return (after.body.messages.at(-1).content as { type: string; content: string; is_error?: boolean }[]).filter(b => b.type === 'tool_result');
  };

  peerCase({
    verdict: 'same',
    title: 'fork_turns "banana" and "0" are refused with a message naming the accepted forms: protocol, Agent tool, CLI',
    sources: [
      codexMultiAgents('multi_agent_v2_spawn_rejects_invalid_fork_turns_string'),
      codexMultiAgents('multi_agent_v2_spawn_rejects_zero_fork_turns'),
    ],
  }, async () => {
    const t = tag();
    h.fake.setResponder(() => say(`${t} a1`));
    const { sessionId } = await h.send(`${t} q1`);
    const before = await forkCount();
    for (const bad of ['banana', '0']) {
      await assert.rejects(startFork(h, { sessionId, directive: 'x', forkTurns: bad }), (e: Error) => ACCEPTED_FORMS.test(e.message));
      const run = await cli('fork', '--session', sessionId, '--turns', bad, 'x');
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, ACCEPTED_FORMS);
    }
    const results = await agentResults(t, ['banana', '0'].map(v => ['Agent', { subagent_type: 'fork', description: 'x', prompt: 'y', fork_turns: v }]));
    assert.equal(results.length, 2);
    assert.ok(results.every(r => r.is_error && ACCEPTED_FORMS.test(r.content)));
    assert.equal(await forkCount(), before, 'no fork was started');
  });

  peerCase({
    verdict: 'deliberately different',
    title: 'fork_turns "none" is refused; a history-free helper is a regular subagent instead',
    sources: [codexMultiAgents('multi_agent_v2_spawn_rejects_invalid_fork_turns_string (its message accepts `none`)')],
    because: 'docs/design.md §4.1 rejects "none" (seed 000 non-goal: "Callers that do not want parent context should launch a regular subagent"); Codex accepts none, all or a positive integer.',
  }, async () => {
    const t = tag();
    h.fake.setResponder(() => say(`${t} a1`));
    const { sessionId } = await h.send(`${t} q1`);
    await assert.rejects(startFork(h, { sessionId, directive: 'x', forkTurns: 'none' }), (e: Error) => ACCEPTED_FORMS.test(e.message));
    const run = await cli('fork', '--session', sessionId, '--turns', 'none', 'x');
    assert.equal(run.code, 2);
    const [result] = await agentResults(t, [['Agent', { subagent_type: 'fork', description: 'x', prompt: 'y', fork_turns: 'none' }]]);
    assert.ok(result.is_error && ACCEPTED_FORMS.test(result.content));
  });

  peerCase({
    verdict: 'deliberately different',
    title: 'a regular subagent starts with no parent history, and fork_turns is refused for it rather than defaulting to none',
    sources: [qwenInherited('defaults to none and normalizes explicit values / returns no parent history for none')],
    because: 'docs/design.md §1: regular subagents (general-purpose, explore) start with no parent history and fork_turns is not theirs; §4.1: supplying it for a non-fork type is rejected. Qwen\'s later builder gives every subagent an optional window defaulting to none.',
  }, async () => {
    const t = tag();
    const task = `${t} explore the folder`;
    let turns = 0;
    h.fake.setResponder(r => {
      if (textsOf(r).some(text => text.includes(task))) return say('explored: nothing there');
      return ++turns === 1 ? call(['Agent', { subagent_type: 'explore', description: 'look', prompt: task }]) : say(`${t} thanks`);
    });
    await h.send(`${t} private parent question`);
    const sub = h.fake.requests.find(r => textsOf(r).some(text => text.includes(task)));
    assert.ok(sub, 'the subagent made a request');
    assert.ok(!sub.rawBody.includes(`${t} private parent question`), 'none of the parent\'s history');
    const [refused] = await agentResults(tag(), [['Agent', { subagent_type: 'explore', description: 'x', prompt: 'y', fork_turns: '2' }]]);
    assert.ok(refused.is_error && /only accepted with subagent_type "fork"/.test(refused.content));
  });

  peerCase({
    verdict: 'same',
    title: 'a fork of an unknown session is refused, over the protocol and from the CLI (exit 2)',
    sources: [dshSessionFork('rejects an unknown live session id')],
  }, async () => {
    const before = await forkCount();
    await assert.rejects(startFork(h, { sessionId: 's-00000000-0000-0000', directive: 'x' }), /no session with id/);
    const run = await cli('fork', '--session', 's-00000000-0000-0000', 'x');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /no session with id/);
    assert.equal(await forkCount(), before);
  });

  peerCase({
    verdict: 'same',
    title: 'Fork from here at an entry the parent does not have is refused before any fork is created',
    sources: [dshSessionFork('rejects invalid boundaries before creating a child')],
  }, async () => {
    const t = tag();
    h.fake.setResponder(() => say(`${t} a1`));
    const { sessionId } = await h.send(`${t} q1`);
    const before = await forkCount();
    await assert.rejects(startFork(h, { sessionId, directive: 'x', atEntryId: 'e-00000000-nope' }), /not in the parent's history/);
    assert.equal(await forkCount(), before);
  });

  peerCase({
    verdict: 'same',
    title: 'Fork from here at an entry that was rewound away is refused',
    sources: [codexTruncation('truncate_rollout_after_turn_id_rejects_rolled_back_turn (later versions of the same file)')],
  }, async () => {
    const t = tag();
    let turns = 0;
    h.fake.setResponder(() => say(`${t} a${++turns}`));
    const { sessionId } = await h.send(`${t} q1`);
    await h.send(`${t} q2`, { sessionId });
    const { entries } = await h.transcript(sessionId);
    const rewoundAway = entryWithText(entries, `${t} a2`).id;
    await h.send(`${t} q3`, { sessionId, afterEntryId: entryWithText(entries, `${t} a1`).id });
    const before = await forkCount();
    await assert.rejects(startFork(h, { sessionId, directive: 'x', atEntryId: rewoundAway }), /not in the parent's history/);
    assert.equal(await forkCount(), before);
  });

  peerCase({
    verdict: 'same',
    title: 'a worktree fork\'s directive carries the worktree notice: both roots, translate paths, re-read before editing, changes stay there',
    sources: [claudeFork('buildWorktreeNotice')],
  }, async () => {
    const t = tag();
    const repo = path.join(h.root, `repo-${t}`);
    fs.mkdirSync(repo);
    initRepo(repo, { 'README.md': '# sample\n' });
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: worktree.\nResult: done.') : say(`${t} a1`)));
    const { sessionId } = await h.send(`${t} q1`, { root: repo });
    const fork = await startFork(h, { sessionId, directive: `${t} in a worktree`, isolation: 'worktree' });
    try {
      await waitFork(h, fork.id);
      assert.ok(fork.worktree);
      const directive = textsOf(firstForkRequest(h, `${t} in a worktree`)).at(-1)!;
      const { header } = await h.transcript(sessionId);
      assert.ok(directive.includes(`The parent's root is ${header.root}; yours is ${fork.root}.`), directive);
      assert.match(directive, /Translate inherited paths/);
      assert.match(directive, /Re-read files before editing/);
      assert.match(directive, /Your changes stay in your worktree/);
    } finally {
      await sendRequest(h.client.endpoint, forkDiscard, { forkId: fork.id });
    }
  });
});
