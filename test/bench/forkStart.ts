// Section 1: fork start overhead — selection, boundary closing and the bootstrap write (header line +
// bootstrap line, written to the fork's file and the start journal; fork/start answers then, and the
// journal's fdatasync follows before the fork's first request), through the real createForkSession; no
// network, no worktree.
// Each parent is forked into two stores: one on the temp disk (what users get; includes flush latency,
// which on a shared machine is noisy) and one on tmpfs (the code's own cost: selection, closing,
// serialisation). Runs are interleaved across all conditions so load drift hits them alike, each after a
// forced GC.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ForkTurns } from '../../src/common/forkTurns';
import { answeredEnd, closeSelection } from '../../src/runtime/fork/history/close';
import { createForkSession } from '../../src/runtime/fork/history/createFork';
import { renderDirective } from '../../src/runtime/fork/history/directive';
import { selectSpans } from '../../src/runtime/fork/history/select';
import type { Session } from '../../src/runtime/session/session';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { copyingFork } from './copyAnchor';
import { buildParent } from './transcriptGen';
import type { BenchContext, Row, Section, SectionResult } from './types';
import { kb, ms, round, summarize, thousands, timeMs } from './stats';
import type { Timing } from './stats';

const SIZES = [100, 1_000, 10_000];
const TURNS: ForkTurns[] = ['all', 3];
const WARMUP = 5;
const RUNS = 50;
const TARGET_MS = 25;
const TARGET_AT = 1_000;
/** "No faster than linear": log(time ratio) / log(window ratio), with some room for noise. */
const MAX_EXPONENT = 1.15;
/** With a constant window (turns=3) the time should stay flat as the parent grows. */
const MAX_FLAT_RATIO = 2;
export const DIRECTIVE = 'Review the error handling of the session store and list every case that is not handled.';

type Medium = 'disk' | 'tmpfs';
/** ours = createForkSession until written (store.started: what fork/start waits for); copy = the anchors' copying fork (copyAnchor.ts). */
type Mode = 'ours' | 'copy';
/** The small forks judged against the copying anchor: time and bytes, ours ≤ 1× theirs. */
const SMALL_SIZES = [100, 1_000];

interface Condition {
  size: number;
  turns: ForkTurns;
  medium: Medium;
  mode: Mode;
  dir: string;
  parent: Session;
  store: SessionStore;
  samples: number[];
  window: number;
  bootstrapBytes: number;
}

interface Measured {
  size: number; turns: ForkTurns; window: number; bootstrapBytes: number; selectClose: Timing; byMedium: Partial<Record<Medium, Timing>>;
  copy: { bytes: number; byMedium: Partial<Record<Medium, Timing>> };
}

export const forkStartSection: Section = {
  id: '1',
  title: 'Fork start overhead (selection + boundary closing + bootstrap write; no network, no worktree)',
  async run(ctx) {
    const parents: { size: number; session: Session; info: Record<string, unknown> }[] = [];
    const conditions: Condition[] = [];
    const stores: SessionStore[] = [];
    for (const size of SIZES) {
      // Where the parent's own file lives does not matter here; tmpfs just builds it faster.
      const dir = ctx.memTempDir(`fork-start-${size}-`) ?? ctx.tempDir(`fork-start-${size}-`);
      const root = path.join(dir, 'work');
      fs.mkdirSync(root);
      const parentStore = new SessionStore(path.join(dir, 'parent-store'));
      const parent = await buildParent(parentStore, root, { entries: size, seed: size });
      ctx.log(`  parent of ${thousands(parent.entries)} entries: ${kb(parent.bytes)} JSONL, built in ${parent.buildSeconds.toFixed(1)} s`);
      parents.push({ size, session: parent.session, info: { entries: parent.entries, realTurns: parent.realTurns, jsonlBytes: parent.bytes, buildSeconds: round(parent.buildSeconds, 2) } });
      const media: [Medium, string | undefined][] = [['disk', ctx.tempDir(`forks-${size}-`)], ['tmpfs', ctx.memTempDir(`forks-${size}-`)]];
      for (const [medium, forkDir] of media) {
        if (!forkDir) continue;
        // A fork may live in another store than its parent: only the parent Session object is needed.
        const store = new SessionStore(forkDir);
        stores.push(store);
        for (const turns of TURNS) {
          for (const mode of ['ours', 'copy'] as const) conditions.push({ size, turns, medium, mode, dir: forkDir, parent: parent.session, store, samples: [], window: 0, bootstrapBytes: 0 });
        }
      }
    }
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const condition of conditions) {
        // A settled heap before each start (forks start now and then, not back to back): no run pays for
        // the garbage of the one before it.
        ctx.gc();
        await runOnce(condition, i >= WARMUP);
      }
    }
    const measured: Measured[] = [];
    for (const { size, session } of parents) {
      for (const turns of TURNS) {
        const mine = conditions.filter(c => c.size === size && c.turns === turns && c.mode === 'ours');
        const copies = conditions.filter(c => c.size === size && c.turns === turns && c.mode === 'copy');
        const byMedium: Measured['byMedium'] = {};
        for (const c of mine) byMedium[c.medium] = summarize(c.samples);
        const copy: Measured['copy'] = { bytes: copies[0].bootstrapBytes, byMedium: {} };
        for (const c of copies) copy.byMedium[c.medium] = summarize(c.samples);
        measured.push({ size, turns, window: mine[0].window, bootstrapBytes: mine[0].bootstrapBytes, selectClose: measureSelectClose(session, turns), byMedium, copy });
      }
      // Not store.closeAll(): the forks' writers are closed already, and Session.close() is not idempotent.
      session.close();
    }
    return toResult(measured, parents.map(p => p.info), stores.length > SIZES.length);
  },
};

async function runOnce(c: Condition, keep: boolean): Promise<void> {
  if (c.mode === 'copy') return copyOnce(c, keep);
  const started = performance.now();
  const fork = createForkSession(c.store, { parent: c.parent, kind: 'fork', directive: DIRECTIVE, turns: c.turns, isolation: 'shared', origin: 'user', name: 'bench fork' });
  // Until the bootstrap is written, as ForkManager.start waits before fork/start answers. Its flush (which
  // the fork's first request waits for) is awaited untimed, so one run's flush does not overlap the next.
  await c.store.started(fork.id);
  const elapsed = performance.now() - started;
  await c.store.durable(fork.id);
  if (keep) c.samples.push(elapsed);
  c.window = fork.entries().length;
  const file = c.store.fileOf(fork.id);
  c.bootstrapBytes = fs.statSync(file).size;
  // Keeps the temp disk small; the (closed) session stays in the store's map, as in the runtime.
  fork.close();
  fs.rmSync(file);
}

function copyOnce(c: Condition, keep: boolean): void {
  const started = performance.now();
  const file = copyingFork(c.parent, c.dir, c.turns, DIRECTIVE);
  const elapsed = performance.now() - started;
  if (keep) c.samples.push(elapsed);
  c.bootstrapBytes = fs.statSync(file).size;
  fs.rmSync(file);
}

/** The CPU part alone: what createForkSession does before it touches the disk. */
function measureSelectClose(parent: Session, turns: ForkTurns): Timing {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const elapsed = timeMs(() => {
      // What createForkSession runs: spans of the request view, no copy of the list.
      const snapshot = parent.entries();
      closeSelection(selectSpans(snapshot, answeredEnd(snapshot, parent.history()), turns), renderDirective(DIRECTIVE), parent.history());
    });
    if (i >= WARMUP) samples.push(elapsed);
  }
  return summarize(samples);
}

const timingText = (t: Timing | undefined) => (t ? `${ms(t.median)} / ${ms(t.p95)}` : 'n/a');
const timingValues = (prefix: string, t: Timing | undefined) =>
  t ? { [`${prefix}MedianMs`]: round(t.median), [`${prefix}P95Ms`]: round(t.p95), [`${prefix}MinMs`]: round(t.min), [`${prefix}MaxMs`]: round(t.max) } : {};

function toResult(measured: Measured[], parents: Record<string, unknown>[], haveTmpfs: boolean): SectionResult {
  const growthMedium: Medium = haveTmpfs ? 'tmpfs' : 'disk';
  const rows: Row[] = measured.map(m => {
    const judged = m.size === TARGET_AT;
    const disk = m.byMedium.disk!;
    return {
      label: `fork start, ${thousands(m.size)} entries, turns=${m.turns}`,
      result: `disk ${timingText(disk)}, tmpfs ${timingText(m.byMedium.tmpfs)}; window ${thousands(m.window)}, bootstrap ${kb(m.bootstrapBytes)}, select+close ${ms(m.selectClose.median)}`,
      target: judged ? `≤ ${TARGET_MS} ms (disk median)` : undefined,
      verdict: judged ? (disk.median <= TARGET_MS ? 'PASS' : 'MISS') : 'info',
      values: {
        entries: m.size, turns: String(m.turns), runs: disk.runs, warmup: WARMUP,
        ...timingValues('disk', disk), ...timingValues('tmpfs', m.byMedium.tmpfs),
        selectCloseMedianMs: round(m.selectClose.median, 4), selectCloseP95Ms: round(m.selectClose.p95, 4),
        windowEntries: m.window, bootstrapFileBytes: m.bootstrapBytes,
      },
    };
  });
  const at = (size: number, turns: ForkTurns) => measured.find(m => m.size === size && m.turns === turns)!;
  rows.push(growthRow(at(1_000, 'all'), at(10_000, 'all'), growthMedium));
  rows.push(growthRow(at(100, 'all'), at(1_000, 'all'), growthMedium, true));
  rows.push(flatRow(at(100, 3), at(10_000, 3), growthMedium));
  for (const size of SMALL_SIZES) for (const turns of TURNS) rows.push(copyRow(at(size, turns)));
  return {
    rows,
    details: { parents, warmup: WARMUP, runs: RUNS, directive: DIRECTIVE, growthJudgedOn: growthMedium },
    notes: [
      `times are median / p95 of ${RUNS} runs after ${WARMUP} warm-up runs; window = the fork's entries (inherited + closing message); bootstrap = fork file size.`,
      'disk = fork store in the temp dir (see Disk above); tmpfs = fork store in /dev/shm, no flush latency.',
      'small fork vs the copying anchor = ours (until written: what fork/start waits for; its flush follows before its first request) against copyAnchor.ts: the selection deep-copied and the whole fork file written, never flushed; bytes = the fork file each leaves.',
      `select+close = selectSpans + closeSelection alone (spans, no copy); the rest is historyRefs + store.create (header and bootstrap written to the fork file and the start journal; the journal's fdatasync untimed). Growth rows use ${growthMedium} medians.`,
    ],
  };
}

function growthRow(small: Measured, large: Measured, medium: Medium, infoOnly = false): Row {
  const timeRatio = large.byMedium[medium]!.median / small.byMedium[medium]!.median;
  const windowRatio = large.window / small.window;
  const exponent = Math.log(timeRatio) / Math.log(windowRatio);
  return {
    label: `growth, turns=all, ${thousands(small.size)} → ${thousands(large.size)} entries`,
    result: `${medium}: time ×${timeRatio.toFixed(2)} for window ×${windowRatio.toFixed(2)} (exponent ${exponent.toFixed(2)})`,
    target: infoOnly ? undefined : `≤ linear (exponent ≤ ${MAX_EXPONENT})`,
    verdict: infoOnly ? 'info' : exponent <= MAX_EXPONENT ? 'PASS' : 'MISS',
    values: { medium, fromEntries: small.size, toEntries: large.size, timeRatio: round(timeRatio), windowRatio: round(windowRatio), exponent: round(exponent) },
  };
}

/** A small fork against the copying anchor: ours written when it answers and flushed before its first request, theirs never flushed. */
function copyRow(m: Measured): Row {
  const ratio = (medium: Medium) => (m.byMedium[medium] && m.copy.byMedium[medium] ? m.byMedium[medium]!.median / m.copy.byMedium[medium]!.median : undefined);
  const disk = ratio('disk')!;
  const tmpfs = ratio('tmpfs');
  const bytes = m.bootstrapBytes / m.copy.bytes;
  const side = (medium: Medium) => `${medium} ${ms(m.byMedium[medium]!.median)} vs ${ms(m.copy.byMedium[medium]!.median)} (×${ratio(medium)!.toFixed(2)})`;
  return {
    label: `small fork vs the copying anchor, ${thousands(m.size)} entries, turns=${m.turns}`,
    result: `${side('disk')}${tmpfs === undefined ? '' : `; ${side('tmpfs')}`}; bytes ${kb(m.bootstrapBytes)} vs ${kb(m.copy.bytes)} (×${bytes.toFixed(2)}); ours survives a crash when it answers and a power loss before its first request, the copy is never flushed`,
    target: '≤ 1× the anchor\'s time and bytes',
    verdict: disk <= 1 && bytes <= 1 ? 'PASS' : 'MISS',
    values: {
      entries: m.size, turns: String(m.turns), diskRatio: round(disk), ...(tmpfs === undefined ? {} : { tmpfsRatio: round(tmpfs) }), bytesRatio: round(bytes),
      oursBytes: m.bootstrapBytes, copyBytes: m.copy.bytes, ...timingValues('copyDisk', m.copy.byMedium.disk), ...timingValues('copyTmpfs', m.copy.byMedium.tmpfs),
    },
  };
}

function flatRow(small: Measured, large: Measured, medium: Medium): Row {
  const ratio = large.byMedium[medium]!.median / small.byMedium[medium]!.median;
  return {
    label: `growth, turns=3, ${thousands(small.size)} → ${thousands(large.size)} entries`,
    result: `${medium}: time ×${ratio.toFixed(2)} with window ${small.window} → ${large.window} entries (select+close ${ms(small.selectClose.median)} → ${ms(large.selectClose.median)})`,
    target: `window ~constant ⇒ ≤ ×${MAX_FLAT_RATIO}`,
    verdict: ratio <= MAX_FLAT_RATIO ? 'PASS' : 'MISS',
    values: {
      medium, fromEntries: small.size, toEntries: large.size, timeRatio: round(ratio), fromWindow: small.window, toWindow: large.window,
      fromSelectCloseMs: round(small.selectClose.median, 4), toSelectCloseMs: round(large.selectClose.median, 4),
    },
  };
}
