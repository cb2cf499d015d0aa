// Worktree fork creation: createForkWorktree next to a raw `git worktree add` of the same
// repository (a few thousand generated files), target ≤ 1.2 × raw + the time to copy the dirty files.
// "Copy the dirty files" is measured, not assumed: list them the way a copying approach would (`git
// ls-files` for modified, deleted and untracked-but-not-ignored files, `git diff --cached` for staged
// ones) and copy them into the raw worktree. Runs alternate between the two so load drift hits both alike.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createForkWorktree } from '../../src/runtime/git/createWorktree';
import { discardForkWorktree } from '../../src/runtime/git/worktree';
import { ms, round, summarize, thousands } from './stats';
import type { Timing } from './stats';
import type { BenchContext, Row, Section, SectionResult } from './types';

export interface WorktreeBenchOptions {
  /** Files in the generated repository (default 3,000). */
  files?: number;
  /** Measured runs per condition, after one warm-up (default 7). */
  runs?: number;
  /** A fresh temp folder; default: one under the OS temp folder, removed at the end. */
  tempDir?: (prefix: string) => string;
  log?: (message: string) => void;
}

const TARGET_RATIO = 1.2;
/** Dirty state of the "dirty" condition: modified, deleted, staged new, untracked; plus ignored files that must not count. */
const DIRTY = { modified: 40, deleted: 5, staged: 10, untracked: 25, ignored: 300 };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

export function generateRepo(dir: string, files: number): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'user.email', 'bench@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  const line = 'export const value = "lorem ipsum dolor sit amet, consectetur adipiscing elit";\n';
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, 'src', `m${Math.floor(i / 50)}`);
    if (i % 50 === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.ts`), `// file ${i}\n` + line.repeat(10 + (i % 30)));
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), 'build/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'generated');
}

function makeDirty(dir: string): void {
  const file = (i: number) => path.join(dir, 'src', `m${Math.floor(i / 50)}`, `f${i}.ts`);
  for (let i = 0; i < DIRTY.modified; i++) fs.appendFileSync(file(i * 7), '// changed by the parent\n');
  for (let i = 0; i < DIRTY.deleted; i++) fs.rmSync(file(i * 11 + 3));
  fs.mkdirSync(path.join(dir, 'new'), { recursive: true });
  for (let i = 0; i < DIRTY.staged; i++) fs.writeFileSync(path.join(dir, 'new', `staged${i}.ts`), `export const s${i} = ${i};\n`);
  git(dir, 'add', 'new');
  for (let i = 0; i < DIRTY.untracked; i++) fs.writeFileSync(path.join(dir, 'new', `untracked${i}.ts`), `export const u${i} = ${i};\n`);
  fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
  for (let i = 0; i < DIRTY.ignored; i++) fs.writeFileSync(path.join(dir, 'build', `out${i}.js`), 'ignored();\n');
}

/** A copying approach's cost: find the dirty files, then copy (or delete) each into the worktree. */
function copyDirtyFiles(repo: string, worktree: string): number {
  const listed = [
    ...git(repo, 'ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard').split('\0'),
    ...git(repo, 'diff', '--cached', '--name-only', '-z').split('\0'),
  ];
  const paths = [...new Set(listed.filter(Boolean))];
  for (const rel of paths) {
    const from = path.join(repo, rel);
    const to = path.join(worktree, rel);
    if (!fs.existsSync(from)) {
      fs.rmSync(to, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
  return paths.length;
}

interface Samples { raw: number[]; copy: number[]; ours: number[]; copied: number; carried: number }

async function measure(repo: string, treesDir: string, runs: number, dirty: boolean): Promise<Samples> {
  const samples: Samples = { raw: [], copy: [], ours: [], copied: 0, carried: 0 };
  for (let run = -1; run < runs; run++) {
    const tag = `${dirty ? 'd' : 'c'}${run + 1}`;
    const order = run % 2 === 0 ? ['raw', 'ours'] : ['ours', 'raw'];
    for (const which of order) {
      if (which === 'raw') {
        const dir = path.join(treesDir, `raw-${tag}`);
        let start = performance.now();
        git(repo, 'worktree', 'add', '--quiet', '-b', `raw/${tag}`, '--', dir, 'HEAD');
        const raw = performance.now() - start;
        start = performance.now();
        const copied = dirty ? copyDirtyFiles(repo, dir) : 0;
        const copy = performance.now() - start;
        git(repo, 'worktree', 'remove', '--force', '--', dir);
        git(repo, 'branch', '-D', '--', `raw/${tag}`);
        if (run < 0) continue;
        samples.raw.push(raw);
        samples.copy.push(copy);
        samples.copied = copied;
      } else {
        const start = performance.now();
        const worktree = await createForkWorktree({ repoRoot: repo, worktreeRoot: treesDir, slug: `bench ${tag}`, id: `f-${(run + 2).toString(16).padStart(8, '0')}${dirty ? 'd' : 'c'}` });
        const ours = performance.now() - start;
        await discardForkWorktree(worktree);
        if (run < 0) continue;
        samples.ours.push(ours);
        samples.carried = worktree.carried;
      }
    }
  }
  return samples;
}

function row(label: string, s: Samples): Row {
  const [raw, copy, ours] = [summarize(s.raw), summarize(s.copy), summarize(s.ours)];
  const budget = TARGET_RATIO * raw.median + copy.median;
  const ratio = ours.median / raw.median;
  return {
    label,
    result: `createForkWorktree median ${ms(ours.median)} (p95 ${ms(ours.p95)}); raw worktree add ${ms(raw.median)}`
      + (s.copied ? ` + copy of ${s.copied} dirty files ${ms(copy.median)}` : '') + `; ${ratio.toFixed(2)}× raw`,
    target: `≤ ${TARGET_RATIO}× raw${s.copied ? ' + copy' : ''} = ${ms(budget)}`,
    verdict: ours.median <= budget ? 'PASS' : 'MISS',
    values: {
      oursMedianMs: round(ours.median), oursP95Ms: round(ours.p95), rawMedianMs: round(raw.median), rawP95Ms: round(raw.p95),
      copyMedianMs: round(copy.median), budgetMs: round(budget), ratioToRaw: round(ratio), dirtyFiles: s.copied, carried: s.carried, runs: ours.runs,
    },
  };
}

/** The section's measurements; call from the bench's main (or use `worktreeSection`). */
export async function runWorktreeBench(options: WorktreeBenchOptions = {}): Promise<SectionResult> {
  const files = options.files ?? 3_000;
  const runs = options.runs ?? 7;
  const log = options.log ?? (() => undefined);
  const owned = options.tempDir ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-wt-bench-'));
  const base = options.tempDir ? options.tempDir('worktree-') : owned!;
  try {
    const repo = path.join(base, 'repo');
    const trees = path.join(base, 'trees');
    fs.mkdirSync(trees, { recursive: true });
    log(`[worktree] generating a repository of ${thousands(files)} files`);
    generateRepo(repo, files);
    log('[worktree] clean tree');
    const clean = await measure(repo, trees, runs, false);
    makeDirty(repo);
    log('[worktree] dirty tree');
    const dirty = await measure(repo, trees, runs, true);
    const timings: Record<string, Timing> = { cleanOurs: summarize(clean.ours), cleanRaw: summarize(clean.raw), dirtyOurs: summarize(dirty.ours), dirtyRaw: summarize(dirty.raw), dirtyCopy: summarize(dirty.copy) };
    return {
      rows: [
        row(`worktree fork, ${thousands(files)} files, clean tree`, clean),
        row(`worktree fork, ${thousands(files)} files, dirty tree (${DIRTY.modified} modified, ${DIRTY.deleted} deleted, ${DIRTY.staged} staged, ${DIRTY.untracked} untracked)`, dirty),
      ],
      details: { files, runs, dirty: DIRTY, timings },
      notes: [
        'Ours = scratch-index snapshot of the parent\'s state (git add -A), a base commit when dirty, one `git worktree add` checkout of it, metadata.',
        `Ignored files (${DIRTY.ignored} under build/) are neither carried nor copied.`,
      ],
    };
  } finally {
    if (owned) fs.rmSync(owned, { recursive: true, force: true });
  }
}

export const worktreeSection: Section = {
  id: 'worktree',
  title: 'Worktree fork creation vs raw git worktree add (+ copying the dirty files)',
  run: (ctx: BenchContext) => runWorktreeBench({ tempDir: ctx.tempDir, log: ctx.log }),
};
