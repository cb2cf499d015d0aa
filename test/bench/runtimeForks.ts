// Section runtime-forks: what users wait for, through the real runtime process over JSON-RPC against the fake —
// `fork/start` of an `all` fork until it is running (the RPC's answer) and until its first request reaches
// the model, for the first and a later fork of a long parent; siblings started together with the runtime's
// responsiveness meanwhile; each beside the anchor's approach in the same run (copying the transcript, as a
// `/fork` that copies does). Parent sizes: FORK_BENCH_SIZES (comma-separated entry counts).
// FORK_BENCH_RUNTIME_NODE_ARGS: Node options for the runtime process alone, e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile what its main thread does during the section.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { pingRuntime, startRuntimeRunApart } from './runtimeDriver';
import type { RuntimeRun } from './runtimeDriver';
import type { FakeApart } from './fakeApart';
import { kb, mb, ms, quantile, round, summarize, thousands } from './stats';
import { buildParent, recordLatestRequest } from './transcriptGen';
import type { Row, Section } from './types';
import { dirBytes, loadText, mainThreadCpuMs, rssOf } from './processStats';

const DEFAULT_SIZES = [100, 1_000, 10_000, 60_000];
const LATER_RUNS = 5;
const SIBLINGS = [1, 5, 20, 50];
const SIBLING_PARENT = 1_000;
const PING_EVERY_MS = 5;
const TARGET_START_MS = 15;
const TARGET_FORK_BYTES = 64 * 1024;
/** A chat's history on disk (its transcript plus what is kept apart from it) over its transcript's bytes. */
const TARGET_HISTORY_RATIO = 1.1;

/** segmentBytes: what its build added under segments/ (history kept beside the transcript). */
export interface Parent { size: number; id: string; file: string; bytes: number; segmentBytes: number }

export function benchSizes(): number[] {
  const raw = process.env.FORK_BENCH_SIZES;
  if (!raw) return DEFAULT_SIZES;
  const sizes = raw.split(',').map(s => Number(s.trim())).filter(n => Number.isInteger(n) && n >= 10);
  return sizes.length > 0 ? sizes : DEFAULT_SIZES;
}

export const runtimeForksSection: Section = {
  id: 'runtime-forks',
  title: 'Fork start through the real runtime: first and later `all` fork, siblings together (fake model)',
  async run(ctx) {
    const sizes = [...new Set([...benchSizes(), SIBLING_PARENT])].sort((a, b) => a - b);
    const parents: Parent[] = [];
    const run = await startRuntimeRunApart(ctx, { answer: { content: [{ type: 'text', text: 'Done.' }] }, namePattern: DIRECTIVE_PATTERN }, {
      nodePath: nodeWithArgs(ctx.tempDir('node-'), process.env.FORK_BENCH_RUNTIME_NODE_ARGS),
      async prepare(storeDir, root) {
        const store = new SessionStore(storeDir);
        for (const size of sizes) {
          const segmentsBefore = dirBytes(store.segments.dir);
          const built = await buildParent(store, root, { entries: size, seed: size });
          recordLatestRequest(built.session);
          // On disk before the runtime starts, as a chat's records are once its turn reports its end.
          await built.session.durable();
          ctx.log(`  parent of ${thousands(built.entries)} entries: ${mb(built.bytes)} JSONL in ${built.buildSeconds.toFixed(1)} s`);
          parents.push({ size, id: built.session.id, file: store.fileOf(built.session.id), bytes: built.bytes, segmentBytes: dirBytes(store.segments.dir) - segmentsBefore });
          built.session.close();
        }
      },
    });
    const arrivals = new Map<string, number>();
    run.fake.onArrival((directive, at) => {
      if (!arrivals.has(directive)) arrivals.set(directive, at);
    });
    try {
      const rows: Row[] = [];
      for (const parent of parents) rows.push(historyRow(parent), ...await forkRows(run, ctx.tempDir('anchor-'), parent, arrivals));
      const siblingParent = parents.find(p => p.size === SIBLING_PARENT)!;
      for (const count of SIBLINGS) rows.push(await siblingRow(run, siblingParent, count));
      rows.push(idleRow(run.pid()));
      return {
        rows,
        notes: [
          `load average while measuring is printed per row (1 min); the machine may be shared, so compare rows of one run.`,
          `start = fork/start round trip (the fork is running when it answers); sent = until the fake received the fork's first request; runtime CPU = its main thread's CPU time (/proc schedstat) from start until the fork finished — the least load-sensitive number here.`,
          `disk = growth of the runtime's store folder once the fork finished; anchor = fs.copyFile of the parent's transcript on the same disk.`,
          `history on disk = the parent's transcript plus what its building added under segments/ (file sizes), over the transcript's bytes; the anchor keeps the transcript alone (1×).`,
          `first = the first fork of a parent the runtime has not loaded yet (written before it started): its start includes streaming the parent's transcript in (the later forks find it in memory).`,
          `later = median of ${LATER_RUNS} forks after the first. Siblings fork a ${thousands(SIBLING_PARENT)}-entry parent; delay = round trip of an unanswered RPC every ${PING_EVERY_MS} ms; the fake runs on its own thread (bench/fakeApart.ts), and the bench's own loop delay is printed beside, so a delay is the runtime's.`,
        ],
      };
    } finally {
      await run.dispose();
    }
  },
};

/** A wrapper that runs Node with these options (NODE_OPTIONS refuses --cpu-prof); undefined: plain Node. */
export function nodeWithArgs(dir: string, args: string | undefined): string | undefined {
  if (!args) return undefined;
  const wrapper = path.join(dir, 'node');
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' ${args} "$@"\n`, { mode: 0o700 });
  return wrapper;
}

let serial = 0;
const nextDirective = (what: string) => `Bench ${what} fork number ${++serial}: review the store.`;

/** Names a fork's request by its directive (the fake's thread matches it against the raw body). */
export const DIRECTIVE_PATTERN = String.raw`DIRECTIVE: (Bench [^"\\]*? fork number \d+: review the store\.)`;

function historyRow(parent: Parent): Row {
  const ratio = (parent.bytes + parent.segmentBytes) / parent.bytes;
  return {
    label: `history on disk, ${thousands(parent.size)} entries`,
    result: `transcript ${mb(parent.bytes)} + segments ${kb(parent.segmentBytes)} = ${ratio.toFixed(3)}× the transcript; anchor 1×`,
    target: `≤ ${TARGET_HISTORY_RATIO}×`,
    verdict: ratio <= TARGET_HISTORY_RATIO ? 'PASS' : 'MISS',
    values: { entries: parent.size, transcriptBytes: parent.bytes, segmentBytes: parent.segmentBytes, ratio: Number(ratio.toFixed(4)) },
  };
}

/** cpuMs: the runtime's main-thread CPU from fork/start until the fork finished (its one answer included). */
interface Timed { startMs: number; sentMs: number; diskBytes: number; cpuMs: number }

async function timedFork(run: RuntimeRun<FakeApart>, parent: Parent, what: string, arrivals: Map<string, number>): Promise<Timed> {
  const before = dirBytes(run.storeDir);
  const directive = nextDirective(what);
  const cpuBefore = mainThreadCpuMs(run.pid());
  const started = performance.now();
  const fork = await run.startFork({ sessionId: parent.id, directive, forkTurns: 'all', isolation: 'shared', name: directive });
  const startMs = performance.now() - started;
  const done = await run.waitFork(fork.id);
  if (done.state !== 'completed') throw new Error(`fork ended ${done.state}: ${done.error ?? ''}`);
  const sentMs = (arrivals.get(directive) ?? NaN) - started;
  return { startMs, sentMs, diskBytes: dirBytes(run.storeDir) - before, cpuMs: mainThreadCpuMs(run.pid()) - cpuBefore };
}

async function forkRows(run: RuntimeRun<FakeApart>, anchorDir: string, parent: Parent, arrivals: Map<string, number>): Promise<Row[]> {
  const first = await timedFork(run, parent, 'first', arrivals);
  const later: Timed[] = [];
  for (let i = 0; i < LATER_RUNS; i++) later.push(await timedFork(run, parent, 'later', arrivals));
  const copyTarget = path.join(anchorDir, `copy-${parent.size}.jsonl`);
  const copyStart = performance.now();
  await fs.promises.copyFile(parent.file, copyTarget);
  const fd = fs.openSync(copyTarget, 'r+');
  fs.fdatasyncSync(fd);
  fs.closeSync(fd);
  const copyMs = performance.now() - copyStart;
  fs.rmSync(copyTarget);
  const laterStart = summarize(later.map(t => t.startMs));
  const laterSent = summarize(later.map(t => t.sentMs));
  const laterDisk = quantile(later.map(t => t.diskBytes), 0.5);
  const laterCpu = quantile(later.map(t => t.cpuMs), 0.5);
  const label = `${thousands(parent.size)} entries (${mb(parent.bytes)})`;
  const load = loadText();
  return [
    {
      label: `first all fork, ${label}`,
      result: `start ${ms(first.startMs)}, sent ${ms(first.sentMs)}, runtime CPU ${ms(first.cpuMs)}, disk +${kb(first.diskBytes)}; anchor copy ${ms(copyMs)}, +${kb(parent.bytes)}; ${load}`,
      target: `start ≤ ${TARGET_START_MS} ms, disk ≤ ${kb(TARGET_FORK_BYTES)}`,
      verdict: first.startMs <= TARGET_START_MS && first.diskBytes <= TARGET_FORK_BYTES ? 'PASS' : 'MISS',
      values: { entries: parent.size, parentBytes: parent.bytes, startMs: round(first.startMs), sentMs: round(first.sentMs), runtimeCpuMs: round(first.cpuMs), diskBytes: first.diskBytes, anchorCopyMs: round(copyMs), anchorBytes: parent.bytes, load },
    },
    {
      label: `later all fork, ${label}`,
      result: `start ${ms(laterStart.median)} (max ${ms(laterStart.max)}), sent ${ms(laterSent.median)}, runtime CPU ${ms(laterCpu)}, disk +${kb(laterDisk)}; ${load}`,
      target: `start ≤ ${TARGET_START_MS} ms median`,
      verdict: laterStart.median <= TARGET_START_MS ? 'PASS' : 'MISS',
      values: { entries: parent.size, runs: LATER_RUNS, startMedianMs: round(laterStart.median), startMaxMs: round(laterStart.max), sentMedianMs: round(laterSent.median), runtimeCpuMedianMs: round(laterCpu), diskBytesMedian: laterDisk, load },
    },
  ];
}

/**
 * `rssApart`: the runtime holds nothing but this parent, so its RSS peak is the siblings' own and is judged
 * (section siblings); otherwise it is printed only (the runtime-forks runtime holds every parent above).
 */
export async function siblingRow(run: RuntimeRun<FakeApart>, parent: Parent, count: number, rssApart = false): Promise<Row> {
  const pinger = pingRuntime(run, PING_EVERY_MS);
  const starts: number[] = [];
  const cpuBefore = mainThreadCpuMs(run.pid());
  const forks = await Promise.all(Array.from({ length: count }, async () => {
    const directive = nextDirective('sibling');
    const started = performance.now();
    const fork = await run.startFork({ sessionId: parent.id, directive, forkTurns: 'all', isolation: 'shared', name: directive });
    starts.push(performance.now() - started);
    return fork;
  }));
  // Until the last answer: the start path's own CPU, the least load-sensitive number for it.
  const startCpuMs = mainThreadCpuMs(run.pid()) - cpuBefore;
  const ends = await Promise.all(forks.map(f => run.waitFork(f.id)));
  const cpuMs = mainThreadCpuMs(run.pid()) - cpuBefore;
  const delays = await pinger.stop();
  const clientP99 = pinger.clientP99Ms();
  const failed = ends.filter(f => f.state !== 'completed').length;
  const p50 = quantile(starts, 0.5);
  const p99 = quantile(delays, 0.99);
  const load = loadText();
  const rss = rssOf(run.pid());
  return {
    label: `${count} sibling${count === 1 ? '' : 's'} started together`,
    result: `start p50 ${ms(p50)} (max ${ms(Math.max(...starts))}); delay p99 ${ms(p99)}, max ${ms(Math.max(...delays))} (bench's own loop p99 ${ms(clientP99)}); runtime CPU ${ms(startCpuMs)} until answered, ${ms(cpuMs)} until all finished, RSS peak ${mb(rss.peak)}${rssApart ? '' : ' (with every parent above: apart in section siblings)'}${failed ? `; ${failed} not completed` : ''}; ${load}`,
    target: count === 50 ? `start p50 ≤ 20 ms, delay p99 ≤ 50 ms${rssApart ? ', RSS peak ≤ 200 MB' : ''}` : undefined,
    verdict: count === 50 ? (p50 <= 20 && p99 <= 50 && (!rssApart || rss.peak <= 200 * 1024 * 1024) ? 'PASS' : 'MISS') : 'info',
    values: { siblings: count, startP50Ms: round(p50), startMaxMs: round(Math.max(...starts)), delayP99Ms: round(p99), delayMaxMs: round(Math.max(...delays)), benchLoopP99Ms: round(clientP99), pings: delays.length, startCpuMs: round(startCpuMs), runtimeCpuMs: round(cpuMs), rssPeakBytes: rss.peak, notCompleted: failed, load },
  };
}

function idleRow(pid: number): Row {
  const rss = rssOf(pid);
  return {
    label: 'runtime RSS after this section (not idle-from-start: see section cold-start)',
    result: `${mb(rss.now)} now, peak ${mb(rss.peak)}`,
    verdict: 'info',
    values: { rssBytes: rss.now, rssPeakBytes: rss.peak },
  };
}
