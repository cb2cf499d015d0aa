// Conformance, what a fork is after it starts (docs/design.md §4.4–§4.6): its prefix, its guard, its reports,
// continuing and reviving it, its cap and its approvals.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NESTED_FORK_ERROR } from '../../src/runtime/fork/history/directive';
import { MAX_FORK_REQUESTS } from '../../src/runtime/fork/forkContracts';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { killRuntime } from '../runtime/harness';
import { claudeFork, codexControl, codexMultiAgents, dshForkProvider, dshNote, dshSnapshotProposal, peerCase, qwenForkTurns } from './peerCase';
import {
  call, continueFork, firstForkRequest, forkRequests, forksOf, hasText, isForkRequest, lastMessage, lastUserText, parentRequests,
  requestArrives, say, startFork, startPeerHarness, startPeerHarnessWithNotes, tag, textsOf, waitFork,
} from './peerHarness';

/** The fork request cap this file's cap case injects into its own runtime. */
const INJECTED_CAP = 4;
import type { Harness } from './peerHarness';

describe('conformance: a fork after it starts', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startPeerHarnessWithNotes();
  });
  after(() => h.dispose());

  const plainParent = (t: string) => (r: ReceivedRequest) => say(`${t} answer to ${lastUserText(r).slice(0, 40)}`);

  describe('a fork continued after its parent moved on', () => {
    const t = tag();
    let sessionId: string;
    let first: ReceivedRequest;
    let continued: ReceivedRequest;
    before(async () => {
      h.fake.setResponder(r => (isForkRequest(r) ? say(`Scope: ${t} keep.\nResult: continued after ${lastUserText(r)}`) : say(`${t} a1`)));
      sessionId = (await h.send(`${t} q1`)).sessionId;
      const fork = await startFork(h, { sessionId, directive: `${t} keep` });
      await waitFork(h, fork.id);
      first = firstForkRequest(h, `${t} keep`);
      // The parent drops everything (rewind to the start) and goes on with another question.
      h.fake.setResponder(r => (isForkRequest(r) ? say(`Scope: ${t} keep.\nResult: continued after ${lastUserText(r)}`) : say(`${t} a2`)));
      await h.send(`${t} q2 instead`, { sessionId, afterEntryId: null });
      await continueFork(h, fork.id, `${t} and once more`);
      assert.equal((await waitFork(h, fork.id)).state, 'completed');
      continued = forkRequests(h, `${t} keep`).at(-1)!;
    });

    peerCase({
      verdict: 'same',
      title: 'the fork\'s inherited history is fixed when it starts: later parent changes (rewind, new turns) never reach it',
      sources: [
        qwenForkTurns('does not share nested mutable parts with the parent history'),
        dshForkProvider('contributes the completed-turn prefix as a continuable child\'s seed'),
      ],
    }, async () => {
      assert.ok(hasText(continued, `${t} q1`) && hasText(continued, `${t} a1`) && hasText(continued, `${t} and once more`));
      assert.ok(!continued.rawBody.includes(`${t} q2 instead`));
      const parentNow = parentRequests(h, `${t} q2 instead`).at(-1)!;
      assert.ok(!parentNow.rawBody.includes(`${t} q1`), 'the parent really dropped it');
    });

    peerCase({
      verdict: 'deliberately different',
      title: 'a fork stays continuable, and its continued requests keep the parent\'s system prompt and tools byte for byte',
      sources: [dshNote('.agents/notes/implemented/architecture/2026-08-10-fork-children-stay-one-shot.md', 'Forked children stay one-shot')],
      because: 'docs/design.md §4.6: a message to a finished fork continues its own transcript. DeepSeek ships forks one-shot because its continuable children add a report tool ahead of the inherited history; ours add nothing child-only to the head (§4.6), so continuing costs no cache.',
    }, async () => {
      const parentFirst = parentRequests(h, `${t} q1`)[0];
      for (const key of ['system', 'tools', 'model']) {
        assert.equal(JSON.stringify(continued.body[key]), JSON.stringify(parentFirst.body[key]), key);
      }
      assert.ok(continued.usage!.cache_read_input_tokens > 0);
      assert.ok(first.usage!.cache_read_input_tokens > 0);
    });
  });

  peerCase({
    verdict: 'same',
    title: 'a fork revived after the runtime dies resumes its own transcript with the launch-time system prompt and tools',
    sources: [dshSnapshotProposal('cold resume'), claudeFork('FORK_AGENT: the parent\'s rendered system prompt bytes and exact tool pool')],
  }, async () => {
    const t = tag();
    let forkTurns = 0;
    h.fake.setResponder(r => {
      if (!isForkRequest(r)) return say(`${t} a1`);
      forkTurns++;
      if (forkTurns === 1) return call(['read_file', { path: 'notes.md' }]);
      if (forkTurns === 2) return { fault: 'hang' };
      return say(`Scope: ${t} revived.\nResult: pelican.`);
    });
    const { sessionId } = await h.send(`${t} q1`);
    const hung = requestArrives(h, r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${t} survive`) && r.rawBody.includes('pelican'));
    const fork = await startFork(h, { sessionId, directive: `${t} survive` });
    await hung;
    await killRuntime(h.runtimePid());
    await h.reconnect();
    const done = await waitFork(h, fork.id);
    assert.equal(done.state, 'completed');
    assert.equal(done.report, `Scope: ${t} revived.\nResult: pelican.`);
    const [launch, , revived] = forkRequests(h, `${t} survive`);
    for (const key of ['system', 'tools', 'model', 'max_tokens']) assert.equal(JSON.stringify(revived.body[key]), JSON.stringify(launch.body[key]), key);
    assert.ok(hasText(revived, `${t} q1`));
  });

  peerCase({
    verdict: 'same',
    title: 'a fork that calls Agent with subagent_type "fork" gets an error result, while Agent stays declared as in the parent',
    sources: [dshSnapshotProposal('nested forks'), claudeFork('isInForkChild: recursive-fork guard; Agent kept for cache-identical tools')],
  }, async () => {
    const t = tag();
    let forkTurns = 0;
    h.fake.setResponder(r => {
      if (!isForkRequest(r)) return say(`${t} a1`);
      return ++forkTurns === 1
        ? call(['Agent', { subagent_type: 'fork', description: 'again', prompt: `${t} deeper` }])
        : say('Scope: nested.\nResult: refused.');
    });
    const { sessionId } = await h.send(`${t} q1`);
    const fork = await startFork(h, { sessionId, directive: `${t} nest` });
    await waitFork(h, fork.id);
    const [first, second] = forkRequests(h, `${t} nest`);
    const result = lastMessage(second).content[0];
    assert.equal(result.is_error, true);
    assert.equal(result.content, NESTED_FORK_ERROR);
    assert.ok(first.body.tools.some((tool: { name: string }) => tool.name === 'Agent'));
    assert.equal(JSON.stringify(first.body.tools), JSON.stringify(parentRequests(h, `${t} q1`)[0].body.tools));
    assert.equal((await forksOf(h, sessionId)).length, 1, 'no grandchild');
  });

  peerCase({
    verdict: 'same',
    title: 'a fork runs on the parent\'s model, whatever model the client asks for later',
    sources: [codexMultiAgents('spawn_agent_fork_context_ignores_child_model_overrides'), claudeFork('FORK_AGENT: model "inherit"')],
  }, async () => {
    const t = tag();
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: model.\nResult: done.') : say(`${t} a1`)));
    await h.configure({ model: 'claude-parent-model' });
    try {
      const { sessionId } = await h.send(`${t} q1`);
      await h.configure({ model: 'claude-other-model' });
      const fork = await startFork(h, { sessionId, directive: `${t} model` });
      await waitFork(h, fork.id);
      assert.equal(firstForkRequest(h, `${t} model`).body.model, 'claude-parent-model');
    } finally {
      await h.configure({ model: '' });
    }
  });

  peerCase({
    verdict: 'same',
    title: 'a fork\'s first request repeats the parent\'s bytes, so most of it is read from the prompt cache (≥ 90% here)',
    sources: [
      claudeFork('buildForkedMessages: byte-identical API request prefixes for prompt cache sharing'),
      dshNote('.agents/notes/implemented/architecture/2026-08-10-fork-children-stay-one-shot.md', 'a child request whose leading bytes equal the parent\'s re-prefills none of the shared span'),
    ],
  }, async () => {
    const t = tag();
    fs.writeFileSync(path.join(h.root, `big-${t}.txt`), `${'a long file line for the cache share\n'.repeat(1500)}`);
    let parentTurns = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say('Scope: cache.\nResult: done.');
      return ++parentTurns === 1 ? call(['read_file', { path: `big-${t}.txt` }]) : say(`${t} read it`);
    });
    const { sessionId } = await h.send(`${t} read the big file`);
    const fork = await startFork(h, { sessionId, directive: `${t} cached` });
    await waitFork(h, fork.id);
    const usage = firstForkRequest(h, `${t} cached`).usage!;
    const share = usage.cache_read_input_tokens / (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens);
    assert.ok(share >= 0.9, `cache-read share ${share.toFixed(3)}`);
  });

  peerCase({
    verdict: 'same',
    title: 'sibling forks from one point send the same bytes up to their directives',
    sources: [claudeFork('FORK_PLACEHOLDER_RESULT: identical across fork children for prompt cache sharing')],
  }, async () => {
    const t = tag();
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: sibling.\nResult: done.') : say(`${t} plan`)));
    const { sessionId } = await h.send(`${t} q1`);
    const a = await startFork(h, { sessionId, directive: `${t} part A` });
    const b = await startFork(h, { sessionId, directive: `${t} part B` });
    await Promise.all([waitFork(h, a.id), waitFork(h, b.id)]);
    const ra = firstForkRequest(h, `${t} part A`).rawBody;
    const rb = firstForkRequest(h, `${t} part B`).rawBody;
    let common = 0;
    while (ra[common] === rb[common]) common++;
    assert.equal(common, ra.indexOf(`DIRECTIVE: ${t} part `) + `DIRECTIVE: ${t} part `.length);
  });

  peerCase({
    verdict: 'same',
    title: 'the directive is wrapped in the fork boilerplate: a worker, no forking, no questions, one report beginning "Scope:", under 500 words',
    sources: [claudeFork('buildChildMessage')],
  }, async () => {
    const t = tag();
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: boilerplate.\nResult: done.') : say(`${t} a1`)));
    const { sessionId } = await h.send(`${t} q1`);
    const fork = await startFork(h, { sessionId, directive: `${t} shape` });
    await waitFork(h, fork.id);
    const directive = textsOf(firstForkRequest(h, `${t} shape`)).at(-1)!;
    assert.match(directive, /^<fork-boilerplate>\n/);
    assert.match(directive, /forked worker, not the main agent/);
    assert.match(directive, /Do not fork/);
    assert.match(directive, /Do not ask questions/);
    assert.match(directive, /must begin with "Scope:" and stay under 500 words/);
    assert.match(directive, new RegExp(`</fork-boilerplate>\\n\\nDIRECTIVE: ${t} shape$`));
  });

  peerCase({
    verdict: 'same',
    title: 'a background fork the agent started reports into the parent\'s next request as a <fork-notification> reminder, once',
    sources: [claudeFork('isForkSubagentEnabled: forks run in the background with a <task-notification>')],
  }, async () => {
    const t = tag();
    let parentTurns = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) return say(`Scope: ${t} side.\nResult: 3 files.`);
      return ++parentTurns === 1
        ? call(['Agent', { subagent_type: 'fork', description: 'side', prompt: `${t} side`, run_in_background: true }])
        : say(`${t} reply ${parentTurns}`);
    });
    const { sessionId } = await h.send(`${t} q1`);
    const [side] = await forksOf(h, sessionId);
    await waitFork(h, side.id);
    await h.send(`${t} q2`, { sessionId });
    await h.send(`${t} q3`, { sessionId });
    const withReport = parentRequests(h, `${t} q2`)[0];
    assert.match(withReport.rawBody, new RegExp(`<system-reminder>\\\\n<fork-notification>[^]*Result: 3 files`));
    const { entries } = await h.transcript(sessionId);
    assert.equal(entries.filter(e => e.kind === 'notification').length, 1, 'delivered once');
  });

  peerCase({
    verdict: 'same',
    title: 'a fork whose answer has no text reports nothing of its own, never the parent\'s inherited answer',
    sources: [dshForkProvider('does NOT return the seeded parent output when the child produces no message of its own')],
  }, async () => {
    const t = tag();
    h.fake.setResponder(r => (isForkRequest(r) ? { content: [], stop_reason: 'end_turn' } : say(`${t} parent stale`)));
    const { sessionId } = await h.send(`${t} q1`);
    const fork = await startFork(h, { sessionId, directive: `${t} silent` });
    const done = await waitFork(h, fork.id);
    assert.ok(!(done.report ?? '').includes(`${t} parent stale`), `report: ${JSON.stringify(done.report)}`);
  });

  peerCase({
    verdict: 'same',
    title: 'end to end: a fork acts on facts from the current request and from a file the parent read and deleted, which its directive does not repeat',
    sources: [dshSnapshotProposal('targeted scenario: one fact in the request, one in a read-then-deleted file; compare the final workspace')],
  }, async () => {
    const t = tag();
    const root = path.join(h.root, `workspace-${t}`);
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'facts.txt'), 'The number is 42.\n');
    const directive = `${t} write proof.txt with the colour and the number`;
    let parentTurns = 0;
    let forkTurns = 0;
    h.fake.setResponder(r => {
      if (isForkRequest(r)) {
        if (++forkTurns > 1) return say('Scope: proof.\nResult: written.');
        // The scripted model answers from what it was sent, as a real one would.
        const colour = /The colour is (\w+)/.exec(r.rawBody)?.[1] ?? 'unknown';
        const number = /The number is (\d+)/.exec(r.rawBody)?.[1] ?? 'unknown';
        return call(['write_file', { path: 'proof.txt', content: `colour=${colour} number=${number}\n` }]);
      }
      switch (++parentTurns) {
        case 1: return call(['read_file', { path: 'facts.txt' }]);
        case 2: return call(['bash', { command: 'rm facts.txt' }]);
        case 3: return call(['Agent', { subagent_type: 'fork', description: 'proof', prompt: directive }]);
        case 4: return call(['write_file', { path: 'done.txt', content: 'parent done\n' }]);
        default: return say(`${t} all done`);
      }
    });
    const { sessionId } = await h.send(`${t} The colour is teal. Read facts.txt, delete it, then fork a worker for the proof.`, { root });
    const [proof] = await forksOf(h, sessionId);
    assert.equal((await waitFork(h, proof.id)).state, 'completed');
    const told = directive.slice(t.length); // the random tag may itself hold the digits 42
    assert.ok(!told.includes('teal') && !told.includes('42'));
    assert.deepEqual(fs.readdirSync(root).sort(), ['done.txt', 'proof.txt']);
    assert.equal(fs.readFileSync(path.join(root, 'proof.txt'), 'utf8'), 'colour=teal number=42\n');
    assert.equal(fs.readFileSync(path.join(root, 'done.txt'), 'utf8'), 'parent done\n');
  });

  peerCase({
    verdict: 'same',
    title: 'a fork\'s tool calls ask the user (approval mode inherited) and run once approved',
    sources: [claudeFork('FORK_AGENT: permissionMode "bubble" — prompts surface to the parent\'s terminal')],
  }, async () => {
    const t = tag();
    await h.configure({ approvalMode: 'ask', answersForkApprovals: true });
    try {
      let forkTurns = 0;
      h.fake.setResponder(r => {
        if (!isForkRequest(r)) return say(`${t} a1`);
        return ++forkTurns === 1 ? call(['write_file', { path: `approved-${t}.txt`, content: 'yes\n' }]) : say('Scope: approval.\nResult: written.');
      });
      const { sessionId } = await h.send(`${t} q1`);
      const fork = await startFork(h, { sessionId, directive: `${t} approve` });
      assert.equal((await waitFork(h, fork.id)).state, 'completed');
      const asked = h.approvals.filter(a => a.sessionId === fork.id);
      assert.deepEqual(asked.map(a => a.toolName), ['write_file']);
      assert.equal(fs.readFileSync(path.join(h.root, `approved-${t}.txt`), 'utf8'), 'yes\n');
    } finally {
      await h.configure({ approvalMode: 'auto' });
    }
  });

  peerCase({
    verdict: 'same',
    title: `a fork stops at its cap of model turns (${MAX_FORK_REQUESTS}; ${INJECTED_CAP} here, injected)`,
    sources: [claudeFork('FORK_AGENT: maxTurns 200')],
  }, async () => {
    // The cap the peer states is the default; its runtime reads a smaller one from the environment so the
    // case reaches the cap in a few requests instead of 200 (forkRequestCap's unit test covers the default).
    assert.equal(MAX_FORK_REQUESTS, 200);
    const capped = await startPeerHarness({ env: { FORK_AGENTS_MAX_FORK_REQUESTS: String(INJECTED_CAP) } });
    try {
      const t = tag();
      capped.fake.setResponder(r => (isForkRequest(r) ? call(['list_files', { path: '.' }]) : say(`${t} a1`)));
      const { sessionId } = await capped.send(`${t} q1`);
      const fork = await startFork(capped, { sessionId, directive: `${t} forever` });
      const done = await waitFork(capped, fork.id);
      assert.equal(done.state, 'failed');
      assert.equal(done.modelTurns, INJECTED_CAP);
      assert.match(done.error ?? '', new RegExp(`cap of ${INJECTED_CAP} model turns`));
      assert.equal(forkRequests(capped, `${t} forever`).length, INJECTED_CAP);
    } finally {
      await capped.dispose();
    }
  });

  // Codex's fork tests assert the child sees the parent's context; ours holds for every committed turn.
  peerCase({
    verdict: 'same',
    title: 'an `all` fork inherits every committed parent turn, and its transcript names the parent it came from',
    sources: [
      codexControl('spawn_agent_can_fork_parent_thread_history'),
      dshForkProvider('seeds every completed parent turn through the last turn/end'),
      dshForkProvider('seeds the child with the parent\'s completed-turn prefix (child inherits context)'),
    ],
  }, async () => {
    const t = tag();
    h.fake.setResponder(r => (isForkRequest(r) ? say('Scope: lineage.\nResult: done.') : plainParent(t)(r)));
    const { sessionId } = await h.send(`${t} q1`);
    await h.send(`${t} q2`, { sessionId });
    const fork = await startFork(h, { sessionId, directive: `${t} lineage` });
    await waitFork(h, fork.id);
    const request = firstForkRequest(h, `${t} lineage`);
    assert.ok(hasText(request, `${t} q1`) && hasText(request, `${t} q2`));
    assert.equal(textsOf(request).filter(text => text.startsWith(`${t} answer to`)).length, 2);
    const { header } = await h.transcript(fork.id);
    assert.equal(header.parent?.sessionId, sessionId);
    assert.equal(fork.parentSessionId, sessionId);
  });
});
