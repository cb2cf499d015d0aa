// Code checkpoints (checkpoint/takeCheckpoint.ts): the cost per chat turn — a turn-start checkpoint
// (nothing changed since the last turn ended) plus a turn-end one (the files the turn changed) — in
// generated repositories of 1,000, 5,000 and 20,000 files with 1 and 50 changed files per turn, with the
// shadow's watcher and index-free turns (what the runtime does), with the watcher but every turn through
// the index (the previous way, for comparison in the same run), and without the watcher (every
// checkpoint scans the whole tree). Target:
// ≤ 50 ms median per turn at 5,000 files, growing with the changed files, not with the repository. The
// table shows the three sizes side by side, with the machine's load when each was measured.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import type { ShadowRepo } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { ms, round, summarize, thousands } from './stats';
import type { BenchContext, Row, Section, SectionResult } from './types';
import { generateRepo } from './worktree';

const TARGET_MS = 50;
const RUNS = 15;
const SIZES = [1_000, 5_000, 20_000];
const CHANGED = [1, 50];
const MODES = ['watched', 'index', 'scanned'] as const;

/**
 * CPU seconds of git so far, from /proc (Linux); undefined elsewhere: the finished child processes', plus
 * those of the shadow's long-lived ones (treeTurn.ts), which are counted only once they exit otherwise.
 */
function childCpuSeconds(shadow: ShadowRepo): number | undefined {
  try {
    // Fields after the command name: cutime and cstime are the 14th and 15th of those (clock ticks, 100/s).
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    let ticks = Number(fields[13]) + Number(fields[14]);
    const state = shadow.treeTurn;
    for (const pid of state ? [state.hash.pid, state.cat.pid, state.ignore.pid] : []) {
      if (pid === undefined) continue;
      // utime and stime: the 12th and 13th fields after the name. Safe to drop: a process just gone counts as 0.
      const own = (() => { try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); } catch { return undefined; } })();
      if (own) ticks += Number(own[11]) + Number(own[12]);
    }
    return ticks / 100;
  } catch {
    return undefined;
  }
}

interface Measured { medianMs: number; p95Ms: number; gitCpuMs?: number; ownCpuMs: number; load: number; runs: number }

/** One repository of `files` files in one mode: per number of changed files, the per-turn cost. */
async function measureRepo(ctx: BenchContext, files: number, mode: typeof MODES[number]): Promise<{ byChanged: Map<number, Measured>; firstMs: number }> {
  const base = ctx.tempDir(`checkpoints-${files}-${mode}-`);
  const repo = path.join(base, 'repo');
  ctx.log(`[checkpoints] generating a repository of ${thousands(files)} files (${mode})`);
  generateRepo(repo, files);
  const real = fs.realpathSync(repo);
  let start = performance.now();
  const shadow = await shadowFor(path.join(base, 'store'), real);
  if (mode === 'scanned') shadow.watch = false;
  if (mode === 'index') shadow.indexFree = false;
  await takeCheckpoint(shadow);
  const firstMs = performance.now() - start;
  const byChanged = new Map<number, Measured>();
  let edit = 0;
  for (const changed of CHANGED) {
    const samples: number[] = [];
    let cpuBefore: number | undefined;
    let ownBefore = process.cpuUsage();
    for (let run = -1; run < RUNS; run++) {
      if (run === 0) {
        cpuBefore = childCpuSeconds(shadow);
        ownBefore = process.cpuUsage();
      }
      // The turn's changes, made before its end checkpoint: edits spread over the repository plus one new file.
      start = performance.now();
      await takeCheckpoint(shadow);
      const startMs = performance.now() - start;
      for (let i = 0; i < changed - 1; i++) {
        const n = (edit++ * 37) % files;
        fs.appendFileSync(path.join(real, 'src', `m${Math.floor(n / 50)}`, `f${n}.ts`), `// turn edit ${edit}\n`);
      }
      fs.writeFileSync(path.join(real, `new-${run + 1}-${changed}.ts`), `export const added = ${run};\n`);
      start = performance.now();
      await takeCheckpoint(shadow);
      const endMs = performance.now() - start;
      if (run >= 0) samples.push(startMs + endMs);
    }
    const cpuAfter = childCpuSeconds(shadow);
    const own = process.cpuUsage(ownBefore);
    const timing = summarize(samples);
    byChanged.set(changed, {
      medianMs: timing.median,
      p95Ms: timing.p95,
      // This process's own CPU a turn: the watcher's notices, and the bench's own edits.
      ownCpuMs: (own.user + own.system) / 1000 / RUNS,
      ...(cpuBefore === undefined || cpuAfter === undefined ? {} : { gitCpuMs: ((cpuAfter - cpuBefore) * 1000) / RUNS }),
      load: os.loadavg()[0],
      runs: timing.runs,
    });
  }
  shadow.watcher?.close();
  shadow.treeTurn?.close();
  return { byChanged, firstMs };
}

const sizeLabel = (files: number) => `${files / 1000}k`;

/** One row: the repository sizes side by side for one number of changed files and one mode. */
function row(changed: number, mode: typeof MODES[number], bySize: Map<number, Measured>): Row {
  const at = (files: number) => bySize.get(files)!;
  const side = (value: (m: Measured) => number | undefined) => SIZES.map(f => value(at(f))).map(v => (v === undefined ? '?' : v.toFixed(1))).join(' / ');
  const sizes = SIZES.map(sizeLabel).join(' / ');
  const judged = mode === 'watched';
  const median = at(5_000).medianMs;
  return {
    label: `checkpoints per turn, ${changed} changed, ${mode} (${sizes} files)`,
    result: `median ${side(m => m.medianMs)} ms, p95 ${side(m => m.p95Ms)} ms; git CPU ${side(m => m.gitCpuMs)} ms a turn (mean), runtime CPU ${side(m => m.ownCpuMs)} ms; load ${SIZES.map(f => at(f).load.toFixed(1)).join(' / ')}`,
    ...(judged ? { target: `≤ ${TARGET_MS} ms median at 5k` } : {}),
    verdict: judged ? (median <= TARGET_MS ? 'PASS' : 'MISS') : 'info',
    // Flat, one key per figure and size (medianMs_5k): the JSON's rows hold plain values.
    values: {
      changed,
      mode,
      ...Object.fromEntries(SIZES.flatMap(f => {
        const m = at(f);
        const k = sizeLabel(f);
        return [[`load_${k}`, round(m.load)], [`medianMs_${k}`, round(m.medianMs)], [`p95Ms_${k}`, round(m.p95Ms)], [`gitCpuMsMean_${k}`, m.gitCpuMs === undefined ? null : round(m.gitCpuMs)], [`ownCpuMsMean_${k}`, round(m.ownCpuMs)], [`runs_${k}`, m.runs]];
      })),
    },
  };
}

export const checkpointsSection: Section = {
  id: 'checkpoints',
  title: 'Code checkpoints per turn (shadow repository: index-free turns, the split index as fallback)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const loadAtStart = os.loadavg();
    const measured = new Map<string, Map<number, Measured>>();
    const first: Record<string, number> = {};
    for (const files of SIZES) {
      for (const mode of MODES) {
        const { byChanged, firstMs } = await measureRepo(ctx, files, mode);
        for (const [changed, m] of byChanged) {
          const key = `${changed} ${mode}`;
          if (!measured.has(key)) measured.set(key, new Map());
          measured.get(key)!.set(files, m);
        }
        if (mode === 'watched') first[files] = round(firstMs);
      }
    }
    const rows = MODES.flatMap(mode => CHANGED.map(changed => row(changed, mode, measured.get(`${changed} ${mode}`)!)));
    const load = (l: number[]) => l.map(v => v.toFixed(2)).join(' / ');
    return {
      rows,
      details: { runs: RUNS, firstCheckpointMs: first, loadAverageAtStart: loadAtStart, loadAverageAtEnd: os.loadavg() },
      notes: [
        `Machine load average (1/5/15 min) at the section's start ${load(loadAtStart)}, at its end ${load(os.loadavg())}; each row's "load" is the 1-minute figure when that size was measured.`,
        `First checkpoint of a folder (shadow made, index seeded from the repository's): ${SIZES.map(f => `${thousands(f)} files ${ms(first[f])}`).join(', ')}.`,
        'watched (the runtime): the watcher names the changed paths; the tree is the last checkpoint\'s with those paths replaced, no index read or written (treeTurn.ts): the changed files hashed by a long-lived hash-object -w --stdin-paths, new ones asked of a long-lived check-ignore, the trees of their folders written by the runtime, the rest reused by id; nothing changed: no git at all. index (the same, with the index-free turn off — the previous way): the paths sorted from the index paths kept in memory (new files: check-ignore --no-index), anything else by ls-files -c -o over just those paths; then update-index of them and write-tree, both writing the split index with the user\'s objects out of view. scanned: ls-files -m -o -d over every file (stat pass), then as index.',
        'The first checkpoint also starts the watcher and queues the copy of the tree\'s borrowed objects (keepObjects.ts); the warm-up turn waits for that copy and reads the index paths into memory, the measured ones do neither.',
        'Wall time on a loaded machine is mostly waiting for a core (see the load figures); git CPU (user + system of the git processes, 10 ms ticks) does not wait.',
      ],
    };
  },
};
