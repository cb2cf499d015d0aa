// The API key lives in memory only: not in the runtime's environment (so not in tool processes), not in
// transcripts, not in the runtime log.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeLogPath } from '../../src/ipc/socketPath';
import { TEST_KEY, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

describe('runtime: the API key stays secret', function () {
  this.timeout(30_000);
  let h: Harness;
  const saved = process.env.ANTHROPIC_API_KEY;

  before(async () => {
    // A key in the launching process's environment must not reach the detached runtime either.
    process.env.ANTHROPIC_API_KEY = 'sk-ant-from-the-environment';
    h = await startHarness();
  });
  after(async () => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
    await h.dispose();
  });

  it('is in no tool process, transcript or log', async () => {
    h.fake.enqueue(call(['bash', { command: 'env' }]), say('done'));
    const result = await h.send('print the environment');
    const toolOutput = JSON.stringify(h.fake.requests[1].body.messages.at(-1));
    assert.match(toolOutput, /PATH=/, 'the tool ran');
    for (const secret of [TEST_KEY, 'sk-ant-from-the-environment']) {
      assert.ok(!toolOutput.includes(secret), 'not in a tool process environment');
      assert.ok(!fs.readFileSync(path.join(h.storeDir, 'sessions', `${result.sessionId}.jsonl`), 'utf8').includes(secret), 'not in the transcript');
      assert.ok(!fs.readFileSync(runtimeLogPath(h.storeDir), 'utf8').includes(secret), 'not in the runtime log');
    }
  });
});
