// A fork's recorded approval mode is a ceiling for fork/send too: a fork launched under auto-edit, continued
// by a client in auto, still asks before a command, unless the sender explicitly loosens it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

const isForkRequest = (r: ReceivedRequest) => r.rawBody.includes('<fork-boilerplate>');

describe('runtime: fork/send under the launch approval', function () {
  this.timeout(60_000);
  let h: Harness;
  let forkScript: () => ScriptedTurn;
  afterEach(() => h.dispose());

  for (const loosen of [false, true]) {
    it(loosen ? 'with loosenApproval, the sender\'s looser mode applies' : 'a client in auto continuing an auto-edit fork is still asked before a command', async () => {
      h = await startHarness({ config: { approvalMode: 'auto-edit' } });
      forkScript = () => say('Scope: first run');
      h.fake.setResponder(r => (isForkRequest(r) ? forkScript() : say('parent')));
      const { sessionId } = await h.send('hello');
      const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'look around', isolation: 'shared' });
      assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');

      const marker = path.join(h.root, 'ran');
      let calls = 0;
      forkScript = () => (calls++ === 0 ? call(['bash', { command: `touch ${marker}` }]) : say('Scope: second run'));
      await h.configure({ approvalMode: 'auto', answersForkApprovals: true });
      h.answerApproval = () => ({ approved: false });
      await sendRequest(h.client.endpoint, forkSend, { forkId: fork.id, message: 'now run it', ...(loosen ? { loosenApproval: true } : {}) });
      assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
      if (loosen) {
        assert.equal(h.approvals.length, 0);
        assert.ok(fs.existsSync(marker));
      } else {
        assert.deepEqual(h.approvals.map(a => [a.sessionId, a.category]), [[fork.id, 'exec']], 'the command asked');
        assert.equal(fs.existsSync(marker), false, 'denied, it did not run');
      }
    });
  }
});
