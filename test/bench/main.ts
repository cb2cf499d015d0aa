// `npm run bench`: measures the fork engine against each section's targets and prints a table; the same
// numbers go to test-results/bench.json. A benchmark reports: a missed target never fails the run.
// Usage: node dist/bench.js [section ids, e.g. 1 3]   (default: FORK_BENCH_SECTIONS="runtime-forks cold-start", else every section)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { collectConditions } from './conditions';
import { runFakeWorkerIfAsked } from './fakeApart';
import { renderReport, writeJson } from './report';
import type { SectionOutcome } from './report';
import { SECTIONS } from './sections';
import type { BenchContext } from './types';

type Gc = () => void;

/** The heap section needs forced GC: re-run this same script under --expose-gc when it is missing. */
function ensureGc(): Gc | undefined {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc === 'function') return gc;
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

/** A scratch folder in /dev/shm when it is a writable tmpfs (Linux), else undefined. */
function tmpfsBase(): string | undefined {
  try {
    if (!fs.statSync('/dev/shm').isDirectory()) return undefined;
    return fs.mkdtempSync('/dev/shm/fork-agents-bench-');
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const gc = ensureGc()!;
  const distDir = __dirname;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-bench-'));
  const memBase = tmpfsBase();
  const ctx: BenchContext = {
    gc,
    distDir,
    tempDir: prefix => fs.mkdtempSync(path.join(base, prefix)),
    memTempDir: prefix => (memBase ? fs.mkdtempSync(path.join(memBase, prefix)) : undefined),
    log: message => process.stderr.write(message + '\n'),
  };
  const wanted = process.argv.length > 2 ? process.argv.slice(2) : (process.env.FORK_BENCH_SECTIONS ?? '').split(/[\s,]+/).filter(Boolean);
  const sections = SECTIONS.filter(s => wanted.length === 0 || wanted.includes(s.id));
  const started = performance.now();
  const conditions = collectConditions(base);
  const outcomes: SectionOutcome[] = [];
  try {
    for (const section of sections) {
      ctx.log(`[bench] ${section.id}. ${section.title}`);
      const sectionStart = performance.now();
      try {
        const result = await section.run(ctx);
        outcomes.push({ section, result, seconds: (performance.now() - sectionStart) / 1000 });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        ctx.log(`[bench] section ${section.id} failed: ${error instanceof Error ? error.stack : message}`);
        outcomes.push({
          section,
          result: { rows: [{ label: 'section failed', result: message, verdict: 'error', values: { error: message } }] },
          seconds: (performance.now() - sectionStart) / 1000,
        });
      }
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
    if (memBase) fs.rmSync(memBase, { recursive: true, force: true });
  }
  const total = (performance.now() - started) / 1000;
  process.stdout.write('\n' + renderReport(conditions, outcomes, total) + '\n');
  const json = path.resolve(distDir, '..', 'test-results', 'bench.json');
  writeJson(json, conditions, outcomes, total);
  process.stdout.write(`Wrote ${path.relative(process.cwd(), json) || json}\n`);
}

// The same bundle runs the fake's thread (fakeApart.ts).
if (!runFakeWorkerIfAsked()) {
  main().catch(error => {
    // Only a broken harness gets here (sections report their own errors).
    process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
