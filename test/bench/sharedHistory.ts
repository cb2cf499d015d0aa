// Section 6: forks of long sessions. Side by side in one run: our fork start (bootstrap by
// reference to sealed segments) and the anchors' approach (a structuredClone of the selected history,
// then the whole fork transcript written and flushed, as Qwen Code and Claude Code do); the disk 20 forks
// take; and opening a 40 MB session in the real runtime while 5 forks stream, against one synchronous
// read of that file (what 0.1.0 did on the runtime's thread).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkEvent, forkStart, forkWait } from '../../src/common/protocol/forks';
import { runtimeConfigure, sessionSend } from '../../src/common/protocol/runtime';
import { createForkSession } from '../../src/runtime/fork/history/createFork';
import { readJsonl } from '../../src/runtime/session/jsonl';
import type { Session } from '../../src/runtime/session/session';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { writeWhole } from '../../src/runtime/session/segments';
import { copyingFork } from './copyAnchor';
import { DIRECTIVE } from './forkStart';
import { startFakeProcess, stopRuntime } from './panelLoad';
import { buildParent } from './transcriptGen';
import type { BenchContext, Row, Section } from './types';
import { kb, mb, ms, quantile, round, summarize, thousands, timeMs } from './stats';

const BIG_BYTES = 40 * 1024 * 1024;
const SMALL_ENTRIES = 100;
const WARMUP = 2;
const RUNS = 15;
const DISK_FORKS = 20;
const STREAMING_FORKS = 5;
const KEY = 'sk-ant-bench-panel';

interface Parent { label: string; store: SessionStore; session: Session; entries: number; bytes: number; dir: string; mem?: { store: SessionStore; session: Session; dir: string } }

export const sharedHistorySection: Section = {
  id: '6',
  title: 'Forks of long sessions: bootstrap by reference vs the anchors\' copy (structuredClone + whole write)',
  async run(ctx) {
    const small = await parentOnDisk(ctx, 'small', { entries: SMALL_ENTRIES, seed: 61 });
    const big = await parentOnDisk(ctx, 'big', { bytes: BIG_BYTES, seed: 62 });
    const rows: Row[] = [];
    const loadAtStart = os.loadavg()[0];
    const measured = measureStarts(ctx, [small, big]);
    const all = measured.filter(s => s.mode !== 'write');
    // The same bootstrap bytes written to a new file and flushed, alone: the share of the disk's flush.
    const [writeSmall, writeBig] = measured.filter(s => s.mode === 'write' && !s.tmpfs).map(s => s.timing);
    const start = all.filter(s => !s.tmpfs);
    const mem = all.filter(s => s.tmpfs).map(s => s.timing);
    const [oursSmall, anchorSmall, oursBig, anchorBig] = start.map(s => s.timing);
    const memText = (i: number) => (mem.length === 4 ? `; on tmpfs ${ms(mem[i].median)} vs anchors ${ms(mem[i + 1].median)}` : '');
    rows.push({
      label: `fork start, ${thousands(big.entries)} entries / ${mb(big.bytes)}, turns=all`,
      result: `disk: ours ${ms(oursBig.median)} median (p95 ${ms(oursBig.p95)}), of which creating + fdatasync of the ${kb(start[2].bytes)} bootstrap alone ${ms(writeBig.median)} median; anchors ${ms(anchorBig.median)} median, ${mb(start[3].bytes)} written${memText(2)} (load average ${loadAtStart.toFixed(1)})`,
      target: '≤ 5 ms median; bootstrap ≤ 64 KB',
      verdict: oursBig.median <= 5 && start[2].bytes <= 64 * 1024 ? 'PASS' : 'MISS',
      values: { entries: big.entries, parentBytes: big.bytes, ...(mem.length === 4 ? { oursTmpfsMedianMs: round(mem[2].median), anchorTmpfsMedianMs: round(mem[3].median) } : {}), bootstrapWriteAloneMedianMs: round(writeBig.median), loadAverage1m: round(loadAtStart), oursMedianMs: round(oursBig.median), oursP95Ms: round(oursBig.p95), bootstrapBytes: start[2].bytes, anchorMedianMs: round(anchorBig.median), anchorP95Ms: round(anchorBig.p95), anchorBytes: start[3].bytes, runs: RUNS },
    });
    const ratio = oursBig.median / oursSmall.median;
    rows.push({
      label: `fork start, ${SMALL_ENTRIES} entries vs ${thousands(big.entries)} entries, turns=all`,
      result: `disk: ours ${ms(oursSmall.median)} → ${ms(oursBig.median)} (×${ratio.toFixed(2)})${mem.length === 4 ? ` (tmpfs ${ms(mem[0].median)} → ${ms(mem[2].median)})` : ''}, bootstrap ${kb(start[0].bytes)} → ${kb(start[2].bytes)}; anchors ${ms(anchorSmall.median)} → ${ms(anchorBig.median)} (×${(anchorBig.median / anchorSmall.median).toFixed(0)})`,
      target: 'within ×2',
      verdict: ratio <= 2 ? 'PASS' : 'MISS',
      values: { smallWriteAloneMedianMs: round(writeSmall.median), smallMedianMs: round(oursSmall.median), bigMedianMs: round(oursBig.median), ratio: round(ratio), anchorSmallMs: round(anchorSmall.median), anchorBigMs: round(anchorBig.median) },
    });
    rows.push(...(await measureOpen(ctx, big)));
    rows.push(measureDisk(big, start[3].bytes));
    small.session.close();
    for (const p of [small, big]) p.mem?.store.closeAll();
    return {
      rows,
      details: { smallParent: { entries: small.entries, bytes: small.bytes }, bigParent: { entries: big.entries, bytes: big.bytes }, warmup: WARMUP, runs: RUNS },
      notes: [
        `fork start = createForkSession (select + close + header and bootstrap written with fdatasync) in a store on the temp disk (and a copy on tmpfs: the code's own cost), median of ${RUNS} interleaved runs after ${WARMUP} warm-ups, each after a forced GC.`,
        'anchors = the same selection and closing, then structuredClone of the selected history and the whole fork file (header + every inherited entry) written and flushed in one go.',
        `open = fork/start on the ${mb(big.bytes)} session through the real runtime, which must first stream it in; event delay = gaps between consecutive fork/event notifications of the ${STREAMING_FORKS} streaming forks received meanwhile.`,
      ],
    };
  },
};

/** Builds a parent on tmpfs (fast), then copies its store to the temp disk and streams it in there. */
async function parentOnDisk(ctx: BenchContext, label: string, target: { entries?: number; bytes?: number; seed: number }): Promise<Parent> {
  const scratch = ctx.memTempDir(`shared-${label}-`) ?? ctx.tempDir(`shared-${label}-build-`);
  const root = path.join(scratch, 'work');
  fs.mkdirSync(root);
  const built = await buildParent(new SessionStore(path.join(scratch, 'store')), root, target);
  built.session.close();
  ctx.log(`  ${label} parent: ${thousands(built.entries)} entries, ${mb(built.bytes)} JSONL, built in ${built.buildSeconds.toFixed(1)} s`);
  const dir = ctx.tempDir(`shared-${label}-`);
  fs.cpSync(path.join(scratch, 'store'), path.join(dir, 'store'), { recursive: true });
  fs.cpSync(root, path.join(dir, 'work'), { recursive: true });
  // A real parent's transcript and segments were flushed as they were written; the copy is not yet, and
  // its writeback would land in the timed forks' fdatasync (the journal commit waits for it).
  flushTree(path.join(dir, 'store'));
  const store = new SessionStore(path.join(dir, 'store'));
  const session = await store.get(built.session.id);
  // The tmpfs copy shows the code's own cost, without the disk's flush latency.
  let mem: Parent['mem'];
  if (scratch.startsWith('/dev/shm')) {
    const memStore = new SessionStore(path.join(scratch, 'store'));
    mem = { store: memStore, session: await memStore.get(built.session.id), dir: scratch };
  }
  return { label, store, session, entries: built.entries, bytes: built.bytes, dir, mem };
}

type StartMode = 'ours' | 'anchor' | 'write';
interface StartResult { timing: ReturnType<typeof summarize>; bytes: number; tmpfs: boolean; mode: StartMode }

function measureStarts(ctx: BenchContext, parents: Parent[]): StartResult[] {
  const modes: StartMode[] = ['ours', 'anchor', 'write'];
  const conditions = parents.flatMap(parent => {
    const media = [parent, ...(parent.mem ? [{ ...parent, ...parent.mem }] : [])];
    return media.flatMap(where => modes.map(mode => ({ parent: where, mode, samples: [] as number[], bytes: 0, bootstrap: Buffer.alloc(0) })));
  });
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of conditions) {
      ctx.gc();
      let file = '';
      // 'write' repeats the bytes of the 'ours' fork just made in the same store (create, write, fdatasync).
      const bootstrap = c.mode === 'write' ? conditions.find(o => o.parent.dir === c.parent.dir && o.mode === 'ours')!.bootstrap : undefined;
      const elapsed = timeMs(() => {
        file = c.mode === 'anchor' ? copyingFork(c.parent.session, c.parent.dir, 'all', DIRECTIVE, { flush: true }) : c.mode === 'write' ? writeAlone(c.parent, bootstrap!) : ourFork(c.parent);
      });
      if (c.mode === 'ours') c.bootstrap = fs.readFileSync(file);
      if (i >= WARMUP) c.samples.push(elapsed);
      c.bytes = fs.statSync(file).size;
      fs.rmSync(file);
    }
  }
  // Disk first, then tmpfs when there is one: [ours, anchors, write alone] per medium, per parent.
  return conditions.map(c => ({ timing: summarize(c.samples), bytes: c.bytes, tmpfs: c.parent.dir.startsWith('/dev/shm'), mode: c.mode }));
}

function writeAlone(parent: Parent, bytes: Buffer): string {
  const file = path.join(parent.store.sessionsDir, `s-${randomUUID()}.jsonl`);
  writeWhole(file, bytes, 'wx');
  return file;
}

function ourFork(parent: Parent): string {
  const fork = createForkSession(parent.store, { parent: parent.session, kind: 'fork', directive: DIRECTIVE, turns: 'all', isolation: 'shared', origin: 'user', name: 'bench fork' });
  fork.close();
  parent.store.drop(fork.id);
  return parent.store.fileOf(fork.id);
}

function measureDisk(big: Parent, anchorBytes: number): Row {
  const usage = () => dirBytes(big.store.storeDir);
  const before = usage();
  for (let i = 0; i < DISK_FORKS; i++) {
    const fork = createForkSession(big.store, { parent: big.session, kind: 'fork', directive: `${DIRECTIVE} (#${i})`, turns: 'all', isolation: 'shared', origin: 'user', name: `disk fork ${i}` });
    fork.close();
  }
  const added = usage() - before;
  const segmentBytes = dirBytes(big.store.segments.dir);
  return {
    label: `disk for ${DISK_FORKS} forks of the ${mb(big.bytes)} parent (turns=all)`,
    result: `ours ${kb(added)} beyond the parent; anchors ${mb(anchorBytes * DISK_FORKS)} (${DISK_FORKS} × ${mb(anchorBytes)}, computed from one written copy). The parent itself: ${mb(big.bytes)} transcript + ${mb(segmentBytes)} sealed segments`,
    target: '< 2 MB beyond the parent',
    verdict: added < 2 * 1024 * 1024 ? 'PASS' : 'MISS',
    values: { forks: DISK_FORKS, addedBytes: added, anchorBytes: anchorBytes * DISK_FORKS, parentTranscriptBytes: big.bytes, parentSegmentBytes: segmentBytes },
  };
}

/** The real runtime opens the big session (streaming it in) while forks of another session stream. */
async function measureOpen(ctx: BenchContext, big: Parent): Promise<Row[]> {
  // What 0.1.0 did on the runtime's thread: one synchronous read and parse of the whole file.
  ctx.gc();
  const syncMs = timeMs(() => readJsonl(big.store.fileOf(big.session.id)));
  const fake = await startFakeProcess(ctx);
  const storeDir = big.store.storeDir;
  let client: RuntimeClient | undefined;
  try {
    client = await connectRpc(await connectOrStart({ storeDir, runtimeScript: path.join(ctx.distDir, 'runtime.js'), idleExitMs: 30_000, connectTimeoutMs: 60_000 }), 'bench-open');
    await sendRequest(client.endpoint, runtimeConfigure, { apiKey: KEY, baseUrl: fake.url, approvalMode: 'auto', maxConcurrentForks: STREAMING_FORKS + 1 });
    const chat = await sendRequest(client.endpoint, sessionSend, { root: path.join(big.dir, 'work'), prompt: 'Hello, demo model.', turnId: randomUUID() });
    const arrivals = new Map<string, number[]>();
    client.connection.onNotification(forkEvent.method, (params: { forkId: string }) => {
      const list = arrivals.get(params.forkId) ?? [];
      list.push(performance.now());
      arrivals.set(params.forkId, list);
    });
    const directive = `Summarise this text. ${'The quick brown fox jumps over the lazy dog. '.repeat(200)}`;
    const streaming = await Promise.all(Array.from({ length: STREAMING_FORKS }, () => sendRequest(client!.endpoint, forkStart, { sessionId: chat.sessionId, directive, forkTurns: 'all', isolation: 'shared' })));
    while (streaming.some(f => (arrivals.get(f.id)?.length ?? 0) < 20)) await new Promise(resolve => setTimeout(resolve, 20));
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const load = os.loadavg()[0];
    const t0 = performance.now();
    const opened = await sendRequest(client.endpoint, forkStart, { sessionId: big.session.id, directive: 'Check the last turn.', forkTurns: '3', isolation: 'shared' });
    const usableMs = performance.now() - t0;
    const t1 = performance.now();
    loop.disable();
    await Promise.all([...streaming, opened].map(f => sendRequest(client!.endpoint, forkWait, { forkId: f.id })));
    const gaps: number[] = [];
    for (const f of streaming) {
      const times = arrivals.get(f.id) ?? [];
      for (let i = 1; i < times.length; i++) if (times[i] >= t0 && times[i - 1] <= t1) gaps.push(times[i] - times[i - 1]);
    }
    const p99 = gaps.length > 0 ? quantile(gaps, 0.99) : NaN;
    return [
      {
        label: `open a ${mb(big.bytes)} session while ${STREAMING_FORKS} forks stream: their event delay`,
        result: `p99 ${ms(p99)}, max ${ms(Math.max(...gaps))} between fork events (${gaps.length} gaps during the open); anchors (one synchronous read + parse) block the loop ${ms(syncMs)} (load average ${load.toFixed(1)})`,
        target: 'p99 < 50 ms',
        verdict: p99 < 50 ? 'PASS' : 'MISS',
        values: { loadAverage1m: round(load), p99Ms: round(p99), maxGapMs: round(Math.max(...gaps)), gaps: gaps.length, syncReadMs: round(syncMs) },
      },
      {
        label: `open a ${mb(big.bytes)} session while ${STREAMING_FORKS} forks stream: usable`,
        result: `fork/start on it answered after ${ms(usableMs)} (stream-in included; load average ${load.toFixed(1)})`,
        target: '≤ 1.5 s',
        verdict: usableMs <= 1500 ? 'PASS' : 'MISS',
        values: { usableMs: round(usableMs) },
      },
    ];
  } finally {
    await client?.close().catch(() => undefined);
    stopRuntime(storeDir);
    fake.child.kill('SIGTERM');
    // The fork the runtime started on the big session stays in the store: the disk row counts from here.
  }
}

function flushTree(dir: string): void {
  for (const name of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, name.name);
    if (name.isDirectory()) flushTree(full);
    else if (name.isFile()) {
      const fd = fs.openSync(full, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
  }
  const fd = fs.openSync(dir, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const name of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, name.name);
    if (name.isDirectory()) total += dirBytes(full);
    // Files only: the runtime that just stopped may still be removing its socket.
    else if (name.isFile()) total += fs.statSync(full, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}
