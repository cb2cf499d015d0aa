// Section cold-start: start-up and idle, as a user meets them — `fork-agents chat --demo "…"` from a fresh store
// (no runtime, no demo model running) until the first answer text is printed, then warm (both running),
// beside `node -e 0`; the runtime's main-thread CPU time until then (far less sensitive to a shared
// machine's load than wall time); the runtime's RSS right after that answer and once idle, beside a bare
// idle Node process.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { loadText, mainThreadCpuMs, rssOf } from './processStats';
import { mb, median, ms, round } from './stats';
import type { BenchContext, Row, Section } from './types';

const COLD_RUNS = 3;
const WARM_RUNS = 3;
const TARGET_COLD_MS = 600;
const TARGET_IDLE_RSS = 70 * 1024 * 1024;
/** Idle = this long after the CLI exited with nothing else to do: V8 shrinks its heap a moment after a burst. */
const SETTLE_MS = 3_000;

interface Timed { firstOutputMs: number; exitMs: number }

/** Runs a command; times its first stdout byte and its exit. */
function timeCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first: number | undefined;
    let stderr = '';
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => (first = performance.now() - started));
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', code => {
      const exitMs = performance.now() - started;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`));
      else resolve({ firstOutputMs: first ?? exitMs, exitMs });
    });
  });
}

/** A bare Node process that idles after start-up: its RSS. */
function bareNodeRss(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("ready\\n"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.stdout.once('data', () => {
      const rss = rssOf(child.pid!).now;
      child.kill();
      resolve(rss);
    });
  });
}

function pidIn(file: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/** Stops only the runtime and demo model this store's files name. */
function stopStore(storeDir: string): void {
  for (const pid of [pidIn(runtimeInfoPath(storeDir)), pidIn(path.join(storeDir, 'demo-model.json'))]) {
    if (pid) try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
  }
}

export const coldStartSection: Section = {
  id: 'cold-start',
  title: 'Start-up and idle: cold and warm `chat --demo` to the first answer; idle runtime RSS',
  async run(ctx: BenchContext) {
    const cli = path.join(ctx.distDir, 'cli.js');
    const env = { ...process.env, ANTHROPIC_API_KEY: '', FORK_AGENTS_PROVIDER: '' };
    const chat = (storeDir: string, workDir: string) => [cli, 'chat', '--demo', '--store', storeDir, '--cwd', workDir, '--approval', 'auto', 'Say hello.'];
    const bare: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) bare.push((await timeCommand(['-e', '0'])).exitMs);
    const cold: Timed[] = [];
    const warm: Timed[] = [];
    const atAnswer: number[] = [];
    const idle: number[] = [];
    const coldCpu: number[] = [];
    const loads: string[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const base = ctx.tempDir('cold-');
      const storeDir = path.join(base, 'store');
      const workDir = path.join(base, 'work');
      fs.mkdirSync(workDir);
      try {
        loads.push(loadText());
        cold.push(await timeCommand(chat(storeDir, workDir), env));
        const pid = pidIn(runtimeInfoPath(storeDir));
        if (pid) {
          coldCpu.push(mainThreadCpuMs(pid));
          atAnswer.push(rssOf(pid).now);
        }
        if (i === 0) for (let j = 0; j < WARM_RUNS; j++) warm.push(await timeCommand(chat(storeDir, workDir), env));
        // Safe: the bench measures idle memory, so it waits idle; no test waits like this.
        await new Promise(resolve => setTimeout(resolve, SETTLE_MS));
        if (pid) idle.push(rssOf(pid).now);
      } finally {
        stopStore(storeDir);
      }
    }
    const bareRss = await bareNodeRss();
    const coldFirst = median(cold.map(t => t.firstOutputMs));
    const idleRss = median(idle);
    const rows: Row[] = [
      {
        label: 'cold chat --demo to the first answer',
        result: `${ms(coldFirst)} median of ${COLD_RUNS} (exit ${ms(median(cold.map(t => t.exitMs)))}); anchor node -e 0: ${ms(median(bare))}; ${loads.join(', ')}`,
        target: `≤ ${TARGET_COLD_MS} ms`,
        verdict: coldFirst <= TARGET_COLD_MS ? 'PASS' : 'MISS',
        values: { runs: COLD_RUNS, firstAnswerMedianMs: round(coldFirst), exitMedianMs: round(median(cold.map(t => t.exitMs))), nodeBareMs: round(median(bare)), loads: loads.join(' ') },
      },
      {
        label: 'warm chat --demo to the first answer',
        result: `${ms(median(warm.map(t => t.firstOutputMs)))} median of ${WARM_RUNS} (exit ${ms(median(warm.map(t => t.exitMs)))}); ${loadText()}`,
        verdict: 'info',
        values: { runs: WARM_RUNS, firstAnswerMedianMs: round(median(warm.map(t => t.firstOutputMs))), exitMedianMs: round(median(warm.map(t => t.exitMs))) },
      },
      {
        label: 'runtime main-thread CPU, cold start to answer',
        result: `${ms(median(coldCpu))} median of ${coldCpu.length} (start-up, handshake, SDK load, first turn)`,
        verdict: 'info',
        values: { runtimeCpuMedianMs: round(median(coldCpu)) },
      },
      {
        label: 'runtime RSS right after answering',
        result: `${mb(median(atAnswer))} median of ${atAnswer.length}`,
        verdict: 'info',
        values: { atAnswerRssBytes: median(atAnswer) },
      },
      {
        label: `idle runtime RSS (${SETTLE_MS / 1000} s after answering)`,
        result: `${mb(idleRss)} median of ${idle.length}; anchor bare idle Node ${mb(bareRss)}`,
        target: `≤ ${mb(TARGET_IDLE_RSS)}`,
        verdict: idleRss <= TARGET_IDLE_RSS ? 'PASS' : 'MISS',
        values: { idleRssBytes: idleRss, bareNodeRssBytes: bareRss, settleMs: SETTLE_MS },
      },
    ];
    return { rows, notes: [
      'first answer = the CLI\'s first stdout byte (the streamed answer); cold = fresh store, so the demo model and the runtime both start, and no compile cache exists yet.',
      'the runtime\'s CPU and RSS right after answering are of the cold run (the SDK loaded, one turn); idle is after the warm runs too.',
    ] };
  },
};
