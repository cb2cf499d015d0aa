// Worktree forks of a Node project with a 5,000-file node_modules: what it costs to give a
// fork working dependencies — link the main tree's folder, copy it, clone it (copy-on-write, where the
// file system can), or run `npm ci` as a setup command — side by side with a raw `git worktree add`
// (which gives no node_modules at all). Times and disk used. The dependency is a local tarball in the
// repository (vendor/), installed from the committed lockfile, so `npm ci` needs no network.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createForkWorktree } from '../../src/runtime/git/createWorktree';
import { discardForkWorktree } from '../../src/runtime/git/worktree';
import { settleSetupBase } from '../../src/runtime/fork/workspace/setupBase';
import { runSetupCommand } from '../../src/runtime/fork/workspace/setupCommand';
import { bringIgnoredFiles } from '../../src/runtime/fork/workspace/worktreeFiles';
import type { WorktreeFilesRequest } from '../../src/runtime/fork/workspace/worktreeFiles';
import { mb, ms, round, summarize, thousands } from './stats';
import type { BenchContext, Row, Section, SectionResult } from './types';

const MODULE_FILES = 5_000;
const SOURCE_FILES = 300;
const NPM_CI = 'npm ci --offline --no-audit --no-fund --loglevel=error';

function run(cwd: string, command: string, ...args: string[]): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** A repository whose package.json depends on a local 5,000-file package, installed with npm. */
function generateProject(base: string): string {
  const pkg = path.join(base, 'big-package');
  for (let i = 0; i < MODULE_FILES - 1; i++) {
    const folder = path.join(pkg, 'lib', `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `m${i}.js`), `module.exports = ${i}; // ${'x'.repeat(200 + (i % 400))}\n`);
  }
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'big-package', version: '1.0.0', main: 'lib/d0/m0.js' }));
  const repo = path.join(base, 'repo');
  fs.mkdirSync(path.join(repo, 'vendor'), { recursive: true });
  run(pkg, 'npm', 'pack', '--pack-destination', path.join(repo, 'vendor'), '--loglevel=error');
  for (let i = 0; i < SOURCE_FILES; i++) {
    const folder = path.join(repo, 'src', `s${Math.floor(i / 50)}`);
    if (i % 50 === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.js`), `exports.v = require('big-package') + ${i};\n`);
  }
  fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, dependencies: { 'big-package': 'file:vendor/big-package-1.0.0.tgz' } }, null, 2));
  fs.writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  run(repo, 'npm', 'install', '--offline', '--no-audit', '--no-fund', '--loglevel=error');
  run(repo, 'git', 'init', '-q');
  run(repo, 'git', 'config', 'user.name', 'Bench');
  run(repo, 'git', 'config', 'user.email', 'bench@example.invalid');
  run(repo, 'git', 'config', 'commit.gpgsign', 'false');
  run(repo, 'git', 'add', '-A');
  run(repo, 'git', 'commit', '-q', '-m', 'project with a committed lockfile');
  return repo;
}

/** KB the folder's files occupy (du; a symlink counts as itself, not as its target). */
function diskKb(dir: string): number {
  return Number(run(dir, 'du', '-sk', '.').split('\t')[0]);
}

function freeKb(dir: string): number {
  const stat = fs.statfsSync(dir);
  return (stat.bavail * stat.bsize) / 1024;
}

function filesUnder(dir: string): number {
  return Number(run(dir, 'bash', '-c', 'find -L node_modules -type f 2>/dev/null | wc -l').trim());
}

/** Whether cp can make a real copy-on-write clone here (reflink=always fails where it cannot). */
function reflinkSupported(dir: string): boolean {
  const probe = path.join(dir, 'reflink-probe');
  fs.writeFileSync(probe, 'probe');
  try {
    run(dir, 'cp', '--reflink=always', probe, `${probe}-clone`);
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { force: true });
    fs.rmSync(`${probe}-clone`, { force: true });
  }
}

type Condition = 'raw' | 'link' | 'copy' | 'clone' | 'npm ci';
interface Sample { ms: number; diskKb: number; freeDropKb: number; files: number }

async function once(repo: string, trees: string, condition: Condition, tag: string): Promise<Sample> {
  const free = freeKb(path.dirname(trees));
  const start = performance.now();
  if (condition === 'raw') {
    const dir = path.join(trees, `raw-${tag}`);
    run(repo, 'git', 'worktree', 'add', '--quiet', '-b', `raw/${tag}`, '--', dir, 'HEAD');
    const elapsed = performance.now() - start;
    const sample = { ms: elapsed, diskKb: diskKb(dir), freeDropKb: free - freeKb(path.dirname(trees)), files: filesUnder(dir) };
    run(repo, 'git', 'worktree', 'remove', '--force', '--', dir);
    run(repo, 'git', 'branch', '-D', '--', `raw/${tag}`);
    return sample;
  }
  const worktree = await createForkWorktree({ repoRoot: repo, worktreeRoot: trees, slug: `prep ${condition} ${tag}`, id: `f-${tag}` });
  const files: WorktreeFilesRequest = { repoTop: repo, worktree: worktree.path };
  if (condition === 'link') await bringIgnoredFiles({ ...files, link: ['node_modules'] });
  else if (condition === 'copy') await bringIgnoredFiles({ ...files, include: ['node_modules'], copyMode: 'copy' });
  else if (condition === 'clone') await bringIgnoredFiles({ ...files, include: ['node_modules'], copyMode: 'clone' });
  else {
    const result = await runSetupCommand({
      command: NPM_CI, cwd: worktree.path, env: {}, timeoutMs: 10 * 60_000, signal: new AbortController().signal, onOutput: () => undefined, onProcessGroup: () => undefined,
    });
    if (result.exitCode !== 0) throw new Error(`npm ci failed: ${result.tail}`);
  }
  await settleSetupBase(worktree, 'bench');
  const elapsed = performance.now() - start;
  const sample = { ms: elapsed, diskKb: diskKb(worktree.path), freeDropKb: free - freeKb(path.dirname(trees)), files: filesUnder(worktree.path) };
  await discardForkWorktree(worktree);
  return sample;
}

export async function runWorktreePrepBench(ctx: Pick<BenchContext, 'tempDir' | 'log'>, runs = 3): Promise<SectionResult> {
  const base = ctx.tempDir('worktree-prep-');
  const trees = path.join(base, 'trees');
  fs.mkdirSync(trees, { recursive: true });
  ctx.log(`[worktree-prep] generating a project with a ${thousands(MODULE_FILES)}-file node_modules`);
  const repo = generateProject(base);
  const moduleFiles = filesUnder(repo);
  const reflink = reflinkSupported(base);
  const conditions: Condition[] = ['raw', 'link', 'copy', 'clone', 'npm ci'];
  const samples = new Map<Condition, Sample[]>(conditions.map(c => [c, []]));
  // One warm-up round, then rounds in rotating order so drift in load hits every condition alike.
  for (let round = -1; round < runs; round++) {
    const order = conditions.map((_, i) => conditions[(i + Math.max(0, round)) % conditions.length]);
    for (const condition of order) {
      const tag = `${condition.replace(/\W/g, '')}${round + 1}`;
      ctx.log(`[worktree-prep] ${condition} (${round < 0 ? 'warm-up' : `run ${round + 1}`})`);
      const sample = await once(repo, trees, condition, tag);
      if (round >= 0) samples.get(condition)!.push(sample);
    }
  }
  const rawMedian = summarize(samples.get('raw')!.map(s => s.ms)).median;
  const rows: Row[] = conditions.map(condition => {
    const list = samples.get(condition)!;
    const time = summarize(list.map(s => s.ms));
    const disk = summarize(list.map(s => s.diskKb)).median;
    const freeDrop = summarize(list.map(s => s.freeDropKb)).median;
    const files = list[0].files;
    const label = condition === 'raw' ? 'raw git worktree add (no node_modules)'
      : condition === 'clone' ? `fork worktree + clone node_modules (cp --reflink=auto; ${reflink ? 'CoW clones' : 'no CoW here: plain copies'})`
        : condition === 'npm ci' ? `fork worktree + setup \`${NPM_CI.split(' --')[0]}\``
          : `fork worktree + ${condition} node_modules`;
    return {
      label,
      result: `median ${ms(time.median)} (min ${ms(time.min)}, max ${ms(time.max)}); ${round(time.median / rawMedian, 2)}× raw; ` +
        `disk ${mb(disk * 1024)} (free space −${mb(Math.max(0, freeDrop) * 1024)}); ${thousands(files)} files reachable under node_modules`,
      verdict: 'info',
      values: { medianMs: round(time.median), minMs: round(time.min), maxMs: round(time.max), ratioToRaw: round(time.median / rawMedian), diskKb: disk, freeDropKb: round(freeDrop), nodeModulesFiles: files, runs: list.length },
    };
  });
  return {
    rows,
    details: { moduleFiles, sourceFiles: SOURCE_FILES, runs, reflinkSupported: reflink, fileSystem: run(base, 'df', '-T', '.').split('\n')[1]?.split(/\s+/)[1] },
    notes: [
      `node_modules of the main tree: ${thousands(moduleFiles)} files from a local tarball (vendor/), installed from the committed lockfile; npm ci runs --offline.`,
      'Fork conditions: createForkWorktree, then the preparation, then the setup base (snapshot of the prepared worktree); the time covers all three.',
      'Disk: du -sk of the worktree (a link counts as itself); free space: statfs before/after (counts CoW sharing, noisy under other load).',
      ...(reflink ? [] : ['This file system has no copy-on-write clones: clone falls back to a plain copy (cp --reflink=auto).']),
    ],
  };
}

export const worktreePrepSection: Section = {
  id: 'worktree-prep',
  title: `Worktree fork with a ${thousands(MODULE_FILES)}-file node_modules: link vs copy vs clone vs setup npm ci, beside raw git worktree add`,
  run: (ctx: BenchContext) => runWorktreePrepBench(ctx),
};
