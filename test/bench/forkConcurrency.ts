// Section fork-concurrency: what fork.maxConcurrent should default to. Fifty siblings of a 1,000-entry parent
// through the real runtime against a fake that answers like a model (time to first token, then a streamed
// answer), at several settings: how long until all fifty finished, the runtime's responsiveness meanwhile
// (round trip of an unanswered RPC every 5 ms), its main-thread CPU and RSS peak. The same run prints the
// load. Settings: FORK_BENCH_CONCURRENCY (comma-separated, default 4,8,16,50).
import { performance } from 'node:perf_hooks';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { runtimeConfigure } from '../../src/common/protocol/runtime';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { pingRuntime, startRuntimeRunApart } from './runtimeDriver';
import type { FakeApart } from './fakeApart';
import type { RuntimeRun } from './runtimeDriver';
import { loadText, mainThreadCpuMs, rssOf } from './processStats';
import { mb, ms, quantile, round } from './stats';
import { buildParent } from './transcriptGen';
import type { Row, Section } from './types';

const SIBLINGS = 50;
const PARENT_ENTRIES = 1_000;
/** Like a model: time to the first event, then a pause between the answer's events. */
const FIRST_EVENT_MS = 400;
const EVENT_GAP_MS = 20;
const PING_EVERY_MS = 5;

function settings(): number[] {
  const raw = process.env.FORK_BENCH_CONCURRENCY;
  const parsed = (raw ?? '').split(',').map(s => Number(s.trim())).filter(n => Number.isInteger(n) && n >= 1);
  return parsed.length > 0 ? parsed : [4, 8, 16, 50];
}

export const forkConcurrencySection: Section = {
  id: 'fork-concurrency',
  title: `fork.maxConcurrent: ${SIBLINGS} siblings against a model-like fake (${FIRST_EVENT_MS} ms to first token)`,
  async run(ctx) {
    let parentId = '';
    const answer = { content: [{ type: 'text' as const, text: 'Scope: the store.\nResult: reviewed; nothing to change in this part of it.' }] };
    // The fake on its own thread: its per-request cache simulation must not count as the runtime's delay.
    const run = await startRuntimeRunApart(ctx, { answer, firstEventDelayMs: FIRST_EVENT_MS, streamDelayMs: EVENT_GAP_MS }, {
      async prepare(storeDir, root) {
        const built = await buildParent(new SessionStore(storeDir), root, { entries: PARENT_ENTRIES, seed: 7 });
        parentId = built.session.id;
        built.session.close();
      },
    });
    try {
      const rows: Row[] = [];
      for (const limit of settings()) rows.push(await concurrencyRow(run, parentId, limit));
      return {
        rows,
        notes: [
          `all done = from the first fork/start until the last of ${SIBLINGS} forks finished; delay = round trip of an unanswered RPC every ${PING_EVERY_MS} ms meanwhile; CPU = the runtime's main thread (/proc schedstat); RSS peak is the process's high-water mark so far (it only grows from row to row).`,
        ],
      };
    } finally {
      await run.dispose();
    }
  },
};

async function concurrencyRow(run: RuntimeRun<FakeApart>, parentId: string, limit: number): Promise<Row> {
  await sendRequest(run.client.endpoint, runtimeConfigure, { maxConcurrentForks: limit });
  const pinger = pingRuntime(run, PING_EVERY_MS);
  const cpuBefore = mainThreadCpuMs(run.pid());
  const started = performance.now();
  const forks = await Promise.all(Array.from({ length: SIBLINGS }, (_, i) =>
    run.startFork({ sessionId: parentId, directive: `Review part ${i + 1} of the store (concurrency ${limit}).`, forkTurns: 'all', isolation: 'shared', name: `c${limit}-${i}` })));
  const ends = await Promise.all(forks.map(f => run.waitFork(f.id)));
  const allDoneMs = performance.now() - started;
  const cpuMs = mainThreadCpuMs(run.pid()) - cpuBefore;
  const delays = await pinger.stop();
  const clientP99 = pinger.clientP99Ms();
  const failed = ends.filter(f => f.state !== 'completed').length;
  const p99 = quantile(delays, 0.99);
  const rss = rssOf(run.pid());
  const load = loadText();
  return {
    label: `${SIBLINGS} siblings, fork.maxConcurrent ${limit}`,
    result: `all done ${ms(allDoneMs)}; delay p99 ${ms(p99)}, max ${ms(Math.max(...delays))} (bench's own loop p99 ${ms(clientP99)}); runtime CPU ${ms(cpuMs)}; RSS peak ${mb(rss.peak)}${failed ? `; ${failed} not completed` : ''}; ${load}`,
    verdict: 'info',
    values: { siblings: SIBLINGS, maxConcurrent: limit, allDoneMs: round(allDoneMs), delayP99Ms: round(p99), delayMaxMs: round(Math.max(...delays)), benchLoopP99Ms: round(clientP99), runtimeCpuMs: round(cpuMs), rssPeakBytes: rss.peak, notCompleted: failed, load },
  };
}
