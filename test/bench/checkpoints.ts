// Code checkpoints (checkpoint/takeCheckpoint.ts): the cost per chat turn — a turn-start checkpoint
// (nothing changed since the last turn ended) plus a turn-end one (the files the turn changed) — in
// generated repositories of 1,000, 5,000 and 20,000 files with 1 and 50 changed files per turn, with the
// shadow's watcher (what the runtime does) and without it (every checkpoint scans the whole tree). Target:
// ≤ 50 ms median per turn at 5,000 files, growing with the changed files, not with the repository.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { shadowFor } from '../../src/runtime/checkpoint/shadowRepo';
import { takeCheckpoint } from '../../src/runtime/checkpoint/takeCheckpoint';
import { ms, round, summarize, thousands } from './stats';
import type { BenchContext, Row, Section, SectionResult } from './types';
import { generateRepo } from './worktree';

const TARGET_MS = 50;
const RUNS = 15;
const SIZES = [1_000, 5_000, 20_000];
const CHANGED = [1, 50];
const MODES = ['watched', 'scanned'] as const;

/** CPU seconds of finished child processes (git) so far, from /proc (Linux); undefined elsewhere. */
function childCpuSeconds(): number | undefined {
  try {
    // Fields after the command name: cutime and cstime are the 14th and 15th of those (clock ticks, 100/s).
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

async function measureRepo(ctx: BenchContext, files: number, mode: typeof MODES[number]): Promise<{ rows: Row[]; firstMs: number }> {
  const base = ctx.tempDir(`checkpoints-${files}-${mode}-`);
  const repo = path.join(base, 'repo');
  ctx.log(`[checkpoints] generating a repository of ${thousands(files)} files (${mode})`);
  generateRepo(repo, files);
  const real = fs.realpathSync(repo);
  let start = performance.now();
  const shadow = await shadowFor(path.join(base, 'store'), real);
  if (mode === 'scanned') shadow.watch = false;
  await takeCheckpoint(shadow);
  const firstMs = performance.now() - start;
  const rows: Row[] = [];
  let edit = 0;
  for (const changed of CHANGED) {
    const samples: number[] = [];
    let cpuBefore: number | undefined;
    let ownBefore = process.cpuUsage();
    for (let run = -1; run < RUNS; run++) {
      if (run === 0) {
        cpuBefore = childCpuSeconds();
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
    const cpuAfter = childCpuSeconds();
    const own = process.cpuUsage(ownBefore);
    // This process's own CPU a turn: the watcher's notices, and the bench's own edits.
    const ownMs = (own.user + own.system) / 1000 / RUNS;
    const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / RUNS;
    const timing = summarize(samples);
    const judged = files === 5_000 && mode === 'watched';
    const load = os.loadavg()[0];
    rows.push({
      label: `checkpoints per turn, ${thousands(files)} files, ${changed} changed, ${mode}`,
      result: `median ${ms(timing.median)} (p95 ${ms(timing.p95)}) for turn start + turn end${cpuMs === undefined ? '' : `; git CPU ${ms(cpuMs)} a turn (mean)`}, runtime CPU ${ms(ownMs)}; load ${load.toFixed(1)}`,
      ...(judged ? { target: `≤ ${TARGET_MS} ms median` } : {}),
      verdict: judged ? (timing.median <= TARGET_MS ? 'PASS' : 'MISS') : 'info',
      values: { files, changed, mode, load: round(load), medianMs: round(timing.median), p95Ms: round(timing.p95), gitCpuMsMean: cpuMs === undefined ? null : round(cpuMs), ownCpuMsMean: round(ownMs), runs: timing.runs },
    });
  }
  return { rows, firstMs };
}

export const checkpointsSection: Section = {
  id: 'checkpoints',
  title: 'Code checkpoints per turn (shadow repository, persistent private index)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const rows: Row[] = [];
    const first: Record<string, number> = {};
    for (const files of SIZES) {
      for (const mode of MODES) {
        const measured = await measureRepo(ctx, files, mode);
        rows.push(...measured.rows);
        if (mode === 'watched') first[files] = round(measured.firstMs);
      }
    }
    return {
      rows,
      details: { runs: RUNS, firstCheckpointMs: first },
      notes: [
        `First checkpoint of a folder (shadow made, index seeded from the repository's): ${SIZES.map(f => `${thousands(f)} files ${ms(first[f])}`).join(', ')}.`,
        'watched (the runtime): the watcher names the changed paths; ls-files -m -o -d over just those, update-index of them, write-tree; nothing changed: no git at all. scanned: ls-files over every file (stat pass), then the same.',
        'The first checkpoint also starts the watcher and queues the copy of the tree\'s borrowed objects (keepObjects.ts); the warm-up turn waits for that copy, the measured ones do not.',
        'Wall time on a loaded machine is mostly waiting for a core (see the load average above); git CPU (user + system of the git processes, 10 ms ticks) does not wait.',
      ],
    };
  },
};
