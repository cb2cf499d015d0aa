// A pathological glob or regex must not freeze the runtime. The match runs off the main
// thread with a budget: while it runs the runtime answers other requests, and the call ends with a bounded,
// clear result instead of blocking for minutes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionList } from '../../src/common/protocol/runtime';
import { toolRuns } from './gitRepo';
import { useSharedHarness } from './harness';
import { call, say } from './script';

describe('runtime: pathological patterns do not freeze the runtime', function () {
  this.timeout(60_000);
  const h = useSharedHarness();

  beforeEach(async () => {
    fs.writeFileSync(path.join(h.root, 'a'.repeat(60)), `${'a'.repeat(40)}!\nplain line\n`);
    fs.writeFileSync(path.join(h.root, 'ok.ts'), 'export const x = 1;\n');
  });

  async function runWhileAnswering(tool: string, input: unknown): Promise<{ content: string; isError: boolean; answeredDuring: boolean }> {
    h.fake.enqueue(call([tool, input]), say('done'));
    let resultSeen = false;
    const sending = h.send('search');
    await h.waitForEvent(e => e.type === 'tool_call');
    const listed = sendRequest(h.client.endpoint, sessionList, {}).then(() => !resultSeen);
    const resultEvent = h.waitForEvent(e => e.type === 'tool_result').then(() => {
      resultSeen = true;
    });
    const answeredDuring = await listed;
    await resultEvent;
    const result = await sending;
    const [run] = toolRuns((await h.transcript(result.sessionId)).entries);
    return { content: run.content, isError: run.isError, answeredDuring };
  }

  it('a 27-character glob with nested wildcards: the runtime keeps answering and the call ends with a clear error', async () => {
    const glob = '*a*a*a*a*a*a*a*a*a*a*a*a*b*';
    assert.equal(glob.length, 27);
    const outcome = await runWhileAnswering('list_files', { pattern: glob });
    assert.ok(outcome.answeredDuring, 'session/list was answered while the glob was being matched');
    assert.equal(outcome.isError, true);
    assert.match(outcome.content, /Matching the glob "\*a\*a.*" took longer than 2 s and was stopped: the pattern is too expensive/);
  });

  it('a simple glob still lists what it matches', async () => {
    const outcome = await runWhileAnswering('list_files', { pattern: '*.ts' });
    assert.equal(outcome.content, 'ok.ts');
  });

  it('^(a+)+$ in the grep fallback: the runtime keeps answering and the call ends with a clear error', async () => {
    const outcome = await runWhileAnswering('grep', { pattern: '^(a+)+$' });
    assert.ok(outcome.answeredDuring, 'session/list was answered while the regex ran');
    assert.equal(outcome.isError, true);
    assert.match(outcome.content, /grep: Matching \/\^\(a\+\)\+\$\/ took longer than 2 s and was stopped/);
  });

  it('the grep fallback still finds plain matches', async () => {
    const outcome = await runWhileAnswering('grep', { pattern: 'plain' });
    assert.equal(outcome.content, `${'a'.repeat(60)}:2:plain line`);
  });
});
