// Conformance, forks of a compacted parent (docs/design.md §4.2): `all` carries the compaction summary as the
// parent sends it; a numeric window never holds the summary nor the turns it replaced.
import * as assert from 'node:assert/strict';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionCompact } from '../../src/common/protocol/runtime';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { codexControl, dshSnapshotProposal, peerCase, qwenForkTurns } from './peerCase';
import {
  firstForkRequest, hasText, isForkRequest, lastUserText, messagesOf, parentRequests, say, startFork, startPeerHarness, tag, textsOf,
  waitFork, withoutBreakpoints,
} from './peerHarness';
import type { Harness } from './peerHarness';

const isSummaryRequest = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');

describe('conformance: forks of a compacted parent', function () {
  this.timeout(60_000);
  let h: Harness;
  const t = tag();
  const summary = `SUMMARY ${t}: questions 1 and 2 were asked and answered.`;
  let sessionId: string;

  before(async () => {
    h = await startPeerHarness({ config: { contextWindow: 1_000_000 } });
    h.fake.setResponder(r => {
      if (isSummaryRequest(r)) return say(summary);
      if (isForkRequest(r)) return say('Scope: compacted.\nResult: done.');
      return say(`${t} answer to ${lastUserText(r)}`);
    });
    sessionId = (await h.send(`${t} q1`)).sessionId;
    await h.send(`${t} q2`, { sessionId });
    await sendRequest(h.client.endpoint, sessionCompact, { sessionId });
    await h.send(`${t} q3`, { sessionId });
  });
  after(() => h.dispose());

  const fork = async (directive: string, forkTurns?: string) => {
    const started = await startFork(h, { sessionId, directive, forkTurns });
    assert.equal((await waitFork(h, started.id)).state, 'completed');
    return firstForkRequest(h, directive);
  };

  peerCase({
    verdict: 'same',
    title: 'a numeric window over a compacted parent holds neither the summary nor the turns it replaced, even when fewer turns exist than asked',
    sources: [
      qwenForkTurns('does not count or inherit a compacted-history prefix for a numeric window'),
      codexControl('spawn_agent_fork_last_n_turns_keeps_only_recent_turns (compacted parent context stays out of a clamped window, later versions)'),
    ],
  }, async () => {
    const request = await fork(`${t} three`, '3');
    assert.ok(hasText(request, `${t} q3`) && hasText(request, `${t} answer to ${t} q3`));
    assert.ok(!request.rawBody.includes(`SUMMARY ${t}`), 'no summary');
    assert.ok(!hasText(request, `${t} q1`) && !hasText(request, `${t} q2`), 'no compacted turn');
    assert.match(textsOf(request)[0], /^<system-reminder>\nWorkspace root/, 'the startup entry is put back in front');
  });

  peerCase({
    verdict: 'same',
    title: 'an `all` fork of a compacted parent inherits what the parent sends: startup, summary, then the kept turns, in that order',
    sources: [dshSnapshotProposal('compaction replacements')],
  }, async () => {
    const request = await fork(`${t} all`);
    const parentLatest = parentRequests(h, `${t} q3`).filter(r => !isSummaryRequest(r)).at(-1)!;
    assert.ok(request.rawBody.includes(`SUMMARY ${t}`));
    const n = messagesOf(parentLatest).length;
    assert.deepEqual(withoutBreakpoints(messagesOf(request).slice(0, n)), withoutBreakpoints(messagesOf(parentLatest)),
      'the fork repeats the parent\'s latest request (a compacted `all` fork must not reorder its first message)');
  });
});
