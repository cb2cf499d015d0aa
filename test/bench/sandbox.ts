// The fork sandbox's cost per command: the bash tool running `true` in a fork worktree unsandboxed, in the
// bubblewrap sandbox without network, and with the filtering proxy (socat started inside, then an inner
// bwrap with the unix-socket filter). Runs interleaved, so load changes hit each kind alike. Target: the
// sandbox adds at most 30 ms per command (median).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createForkWorktree } from '../../src/runtime/git/createWorktree';
import { createForkSandbox } from '../../src/runtime/sandbox/forkSandbox';
import { sandboxSupport } from '../../src/runtime/sandbox/platform';
import { bashTool } from '../../src/runtime/tools/bash';
import type { CommandSandbox } from '../../src/runtime/tools/types';
import { ms, round, summarize } from './stats';
import type { BenchContext, Row, Section, SectionResult } from './types';

const RUNS = 40;
const WARMUP = 3;
const TARGET_MS = 30;

async function timed(root: string, sandbox: CommandSandbox | undefined): Promise<number> {
  const start = performance.now();
  const out = await bashTool.run({ command: 'true' }, { root, signal: new AbortController().signal, sandbox });
  const took = performance.now() - start;
  if (out.isError) throw new Error(`the benchmark command failed: ${out.content}`);
  return took;
}

export const sandboxSection: Section = {
  id: 'sandbox',
  title: 'Sandbox overhead per command (bash tool, `true`)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const support = sandboxSupport();
    if (support.kind !== 'bwrap') {
      return { rows: [{ label: 'sandbox', result: `not measured: ${support.kind === 'unsupported' ? support.reason : 'not Linux'}`, verdict: 'error', values: { support: support.kind } }] };
    }
    const base = ctx.tempDir('sandbox-');
    const repo = path.join(base, 'repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.name=b', '-c', 'user.email=b@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'init');
    const worktree = await createForkWorktree({ repoRoot: repo, slug: 'bench', id: 'bench001', name: 'bench', owner: base });
    const store = path.join(base, 'store');
    fs.mkdirSync(store);
    // An empty home for both kinds: `bash -lc` reads the login profile, whose cost is the user's, not the sandbox's.
    const home = path.join(base, 'home');
    fs.mkdirSync(home);
    const userHome = process.env.HOME;
    process.env.HOME = home;
    const offline = await createForkSandbox({ settings: { mode: 'auto' }, root: worktree.path, worktree, storeDir: store, id: 'bench-a', home });
    const proxied = await createForkSandbox({ settings: { mode: 'auto', allowNetwork: ['registry.npmjs.org'] }, root: worktree.path, worktree, storeDir: store, id: 'bench-b', home });
    const kinds: [string, CommandSandbox | undefined][] = [['unsandboxed', undefined], ['sandboxed, no network', offline.commands], ['sandboxed, proxy for allowNetwork', proxied.commands]];
    const samples = new Map<string, number[]>(kinds.map(([label]) => [label, []]));
    const loadBefore = os.loadavg()[0];
    try {
      for (let i = 0; i < WARMUP + RUNS; i++) {
        for (const [label, sandbox] of kinds) {
          const took = await timed(worktree.path, sandbox);
          if (i >= WARMUP) samples.get(label)!.push(took);
        }
      }
    } finally {
      process.env.HOME = userHome;
      await offline.close();
      await proxied.close();
    }
    const loadAfter = os.loadavg()[0];
    const plain = summarize(samples.get('unsandboxed')!);
    const rows: Row[] = kinds.map(([label]) => {
      const t = summarize(samples.get(label)!);
      const overhead = t.median - plain.median;
      const judged = label !== 'unsandboxed';
      return {
        label: `bash tool \`true\`, ${label}`,
        result: `median ${ms(t.median)}, p95 ${ms(t.p95)}${judged ? `; +${ms(overhead)} over unsandboxed` : ''}`,
        ...(judged ? { target: `≤ +${TARGET_MS} ms median`, verdict: overhead <= TARGET_MS ? 'PASS' as const : 'MISS' as const } : { verdict: 'info' as const }),
        values: { medianMs: round(t.median), p95Ms: round(t.p95), minMs: round(t.min), maxMs: round(t.max), overheadMs: round(overhead), runs: t.runs },
      };
    });
    return {
      rows,
      notes: [`${RUNS} runs each (after ${WARMUP} warm-up), interleaved, with an empty HOME; 1-min load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${os.cpus().length} CPUs.`],
      details: { loadBefore, loadAfter, bwrap: support.bwrap, socat: support.socat ?? null },
    };
  },
};
