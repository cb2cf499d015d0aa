#!/usr/bin/env node
// `npm test`: every test layer — build, no `.only`, lint, type-check, unit, runtime, conformance, the extension-host
// suite inside a real VS Code (code-server) and the UI checks in chromium. Exits non-zero if anything
// fails; the real-VS-Code layers fail (never skip) when their tools are missing.
// Stages that do not depend on each other run side by side (a group), so 2 cores are busy: the builds; the
// checks (no `.only`, lint, both type-checks, unit); runtime (mocha --parallel) beside conformance; then the
// real-VS-Code layers side by side, the UI files two at a time. A side-by-side stage's output is printed in
// one piece when it ends.
// `--quick` (npm run test:quick): the builds, unit, runtime and conformance only — the daily loop.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
process.chdir(root);
const node = process.execPath;
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const eslint = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
const color = process.stdout.isTTY ? ['--color'] : [];

const quick = process.argv.includes('--quick');
// The daily loop runs the race hunts shorter, every assertion kept: the file-race test with 400 calls of each
// kind instead of 2,100 (its racer takes a whole core while it runs), the socket-swap test with 20 connections
// instead of 60, the store-owner race with 4 rounds instead of 10. `npm test` runs all of them.
if (quick) {
  process.env.FORK_AGENTS_TEST_RACE_TURNS ??= '8';
  process.env.FORK_AGENTS_SWAP_RUNS ??= '20';
  process.env.FORK_AGENTS_TEST_OWNER_ROUNDS ??= '4';
}
const running = new Set(); // the running stages' children, stopped on Ctrl-C
process.on('SIGINT', () => {
  for (const child of running) kill(child);
  process.exit(130);
});

function kill(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs a command with its output shown live; resolves with its exit code and what it printed.
 * `finishedWhen`: output that means the run is over; a process still alive `graceMs` after it (and after
 * its last output) left something open, and is stopped and failed rather than hanging `npm test`.
 */
function run(command, args, { finishedWhen, graceMs = 15_000, timeoutMs = 10 * 60_000, out = liveOutput } = {}) {
  return new Promise(resolve => {
    // Own process group, so stopping it also stops what it started.
    const child = spawn(command, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    let output = '';
    let verdict;
    let graceTimer;
    const stop = why => {
      verdict = why;
      kill(child);
    };
    const hardTimer = setTimeout(() => stop(`did not finish within ${timeoutMs / 1000}s`), timeoutMs);
    const copy = stream => chunk => {
      output += chunk.toString();
      stream.write(chunk);
      if (finishedWhen && finishedWhen.test(plain(output))) {
        clearTimeout(graceTimer);
        graceTimer = setTimeout(
          () => stop(`finished but did not exit within ${graceMs / 1000}s: a server, child process, socket or timer was left open`),
          graceMs,
        );
      }
    };
    child.stdout.on('data', copy(out.stdout));
    child.stderr.on('data', copy(out.stderr));
    child.on('error', error => {
      verdict = error.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(hardTimer);
      clearTimeout(graceTimer);
      running.delete(child);
      if (verdict) out.stderr.write(`\n${command === node ? args[0] : command}: ${verdict}\n`);
      resolve({ code: verdict ? 1 : code ?? (signal ? 128 : 1), output, verdict });
    });
  });
}

const liveOutput = { stdout: process.stdout, stderr: process.stderr };

/** Output kept until the stage ends, so stages running side by side do not interleave line by line. */
function heldOutput() {
  const chunks = [];
  const sink = { write: chunk => chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))) };
  return { stdout: sink, stderr: sink, text: () => Buffer.concat(chunks).toString() };
}

const MOCHA_DONE = /\d+ (passing|failing)/;

// eslint-disable-next-line no-control-regex
const plain = text => text.replace(/\x1b\[[0-9;]*m/g, '');

/** mocha's summary ("4 passing", "1 failing", "2 pending") as one line. */
function mochaSummary(output) {
  const text = plain(output);
  const counts = ['passing', 'failing', 'pending']
    .map(word => text.match(new RegExp(`(\\d+) ${word}`, 'g'))?.at(-1))
    .filter(Boolean);
  return counts.join(', ');
}

function describe(result, summary = mochaSummary) {
  const counts = summary(result.output);
  const parts = [counts || `exit ${result.code}`];
  if (result.verdict) parts.push(result.verdict.split(':')[0]);
  return parts.join('; ');
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap(name => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? testFiles(full) : [full];
  });
}

/** `.only(` left in a test silently drops every other test: refuse it (mocha's --forbid-only too). */
function findOnly() {
  const hits = [];
  for (const file of testFiles(join(root, 'test')).filter(f => /\.(ts|js|mjs|cjs)$/.test(f))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (/\.only\s*\(/.test(line)) hits.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  return hits;
}

/** Why the real-VS-Code layers cannot run (the harness's own check, built by build-tests). */
async function e2eToolsProblem() {
  const { findE2eTools } = await import(pathToFileURL(join(root, 'out', 'scripts', 'e2e', 'tools.js')).href);
  const found = findE2eTools();
  return 'problem' in found ? `cannot run the real-VS-Code tests: ${found.problem}` : undefined;
}

const mochaStage = (name, specs, timeout, extra = []) => ({
  name,
  async run(out) {
    const result = await run(node, [mocha, '--forbid-only', '--timeout', String(timeout), ...extra, ...color, ...[specs()].flat()], { finishedWhen: MOCHA_DONE, out });
    return { ok: result.code === 0, detail: describe(result) };
  },
});

/**
 * mocha's failure list ("  1) suite\n       title:\n     Error: …") cut to each failure's title and first
 * lines of its message, in order: printed again under the summary, so the end of a long log still shows
 * the first failure and not only the last ones' stack traces.
 */
function failureDigest(output, linesEach = 4) {
  const text = plain(output);
  const at = text.search(/^\s*\d+ failing\s*$/m);
  if (at < 0) return [];
  return text.slice(at).split(/\n(?=[ \t]+\d+\) )/).slice(1).map(block => {
    const lines = block.split('\n').map(line => line.trim()).filter(Boolean);
    lines[0] = lines[0].replace(/^\d+\) /, '');
    const message = lines.findIndex(line => /^\w*(Error|Exception)\b|^AssertionError|^TimeoutError/.test(line));
    const head = message < 0 ? lines.slice(0, 2) : lines.slice(0, message);
    return [...head, ...(message < 0 ? lines.slice(2, linesEach) : lines.slice(message, message + linesEach - 1))].join('\n    ');
  });
}

const e2eStage = (name, args, summary, timeoutMs = 10 * 60_000) => ({
  name,
  async run(out) {
    const problem = await e2eToolsProblem();
    if (problem) {
      out.stderr.write(`\n${name}: ${problem}\n`);
      return { ok: false, detail: 'code-server/chromium missing (run scripts/e2e/setup.sh)' };
    }
    // `args` may be a function: a file list read once the builds made out/ (a clean clone has none before).
    const result = await run(node, typeof args === 'function' ? args() : args, { finishedWhen: MOCHA_DONE, graceMs: 60_000, timeoutMs, out });
    return { ok: result.code === 0, detail: describe(result, summary), failures: failureDigest(result.output) };
  },
});

const build = {
  name: 'build (esbuild.mjs)',
  fatal: true,
  async run(out) {
    const result = await run(node, ['esbuild.mjs'], { out });
    const missing = ['extension', 'runtime', 'cli', 'fake-anthropic'].filter(b => !existsSync(join(root, 'dist', `${b}.js`)));
    if (result.code === 0 && missing.length > 0) return { ok: false, detail: `no dist/${missing.join('.js, dist/')}.js` };
    return { ok: result.code === 0, detail: result.code === 0 ? 'dist/' : `exit ${result.code}` };
  },
};

const buildTests = {
  name: 'build tests (build-tests.mjs)',
  fatal: true,
  async run(out) {
    const result = await run(node, ['scripts/build-tests.mjs'], { out });
    return { ok: result.code === 0, detail: result.code === 0 ? 'out/' : `exit ${result.code}` };
  },
};

const noOnly = {
  name: 'no .only( in test/',
  async run(out) {
    const hits = findOnly();
    for (const hit of hits) out.stderr.write(`  ${hit}\n`);
    return { ok: hits.length === 0, detail: hits.length === 0 ? 'none' : `${hits.length} found` };
  },
};

const lint = {
  // The layer rules of ARCHITECTURE.md (eslint.config.mjs): a wrong import fails here.
  name: 'lint (eslint: layer boundaries)',
  async run(out) {
    const result = await run(node, [eslint, '--max-warnings', '0', '.'], { out });
    return { ok: result.code === 0, detail: result.code === 0 ? 'no problems' : `exit ${result.code}` };
  },
};

const typeChecks = [['type-check', 'tsconfig.json'], ['type-check webview', 'webview/tsconfig.json']]
  .filter(([, config]) => existsSync(join(root, config)))
  .map(([name, config]) => ({
    name,
    async run(out) {
      const result = await run(node, [tsc, '-p', config, '--noEmit', '--pretty', process.stdout.isTTY ? 'true' : 'false'], { out });
      const errors = plain(result.output).match(/Found (\d+) errors?/)?.[1];
      return { ok: result.code === 0, detail: result.code === 0 ? 'no errors' : `${errors ?? 'some'} error(s)` };
    },
  }));

const unit = mochaStage('unit tests', () => 'out/test/unit/**/*.test.js', 10_000);

// Each runtime file starts its own runtimes, stores and fake servers in its own temp folders, and restores
// any process.env it sets, so files run in parallel worker processes. One job more than cores: a job spends
// much of its time waiting on the runtimes and CLIs it starts. On 2 cores with nothing else running, 3 jobs
// took 82 s and 2 jobs 90 s (the stage alone, 2026-12-03); with other work on the machine 2 did better.
const RUNTIME_JOBS = process.env.FORK_AGENTS_RUNTIME_JOBS ?? String(Math.max(2, availableParallelism()) + 1);
// Workers take files in the order given: the biggest (roughly the longest) first, so the run does not end
// waiting on one long file that started last while the other workers sit idle.
const biggestFirst = dir => testFiles(join(root, dir)).filter(f => f.endsWith('.test.js'))
  .map(f => [statSync(f).size, relative(root, f)]).sort((a, b) => b[0] - a[0]).map(([, f]) => f);
const runtime = mochaStage('runtime tests', () => biggestFirst('out/test/runtime'), 30_000, ['--parallel', '--jobs', RUNTIME_JOBS]);

const conformance = {
  // The peers' own fork tests restated in our terms (test/conformance): same / deliberately different / not expressible.
  // Serial: its root hook counts the verdicts over every file of the run.
  name: 'conformance with the peers',
  async run(out) {
    const result = await run(node, [mocha, '--forbid-only', '--timeout', '60000', ...color, 'out/test/conformance/**/*.test.js'], { finishedWhen: MOCHA_DONE, out });
    const line = plain(result.output).match(/conformance with the peers: ([^\n]*)/)?.[1];
    return { ok: result.code === 0, detail: [line, describe(result)].filter(Boolean).join('; ') };
  },
};

const extensionHost = e2eStage('extension-host tests (code-server)', ['out/scripts/e2e/extensionTests.js'], mochaSummary);
// The UI files run two at a time (FORK_AGENTS_UI_JOBS): a UI check mostly waits on the window, so one file
// keeps about two thirds of a core busy (CPU of each file's process tree, 2026-12-03: 18–74 s per file,
// about 560 s for the stage). Each worker process keeps one chromium from file to file
// (test/e2e/sharedWorkbench.ts); each file keeps its own code-server, store and folders.
const UI_JOBS = process.env.FORK_AGENTS_UI_JOBS ?? '2';
const ui = e2eStage('UI checks (code-server + chromium)', () => [mocha, '--forbid-only', '--timeout', '120000', '--parallel', '--jobs', UI_JOBS, '--require', 'out/test/e2e/sharedWorkbench.js', ...color, ...biggestFirst('out/test/e2e')], mochaSummary,
  // About 55 checks in 20 files: 5–8 minutes on 2 cores with nothing else running, 15 at load 20.
  30 * 60_000);

/**
 * Groups run one after another; the stages of a group run side by side. Everything that needs only the
 * builds shares one group, the longest (runtime) first: the unit, conformance, lint and type-check stages
 * are each one process on one core, so beside the runtime stage they use the time its workers spend
 * waiting on child processes and sockets instead of leaving a core idle in a group of their own. The two
 * real-VS-Code layers share the last group: both mostly wait on a window.
 */
const groups = quick
  ? [[build, buildTests], [runtime, conformance, unit, noOnly]]
  : [[build, buildTests], [runtime, conformance, unit, ...typeChecks, lint, noOnly], [ui, extensionHost]];
const stages = groups.flat();

async function runStage(stage, together) {
  const out = together ? heldOutput() : liveOutput;
  if (together) console.log(`\n━━ ${stage.name} (started; output when it ends) ━━`);
  else console.log(`\n━━ ${stage.name} ━━`);
  const t0 = Date.now();
  let outcome;
  try {
    outcome = await stage.run(out);
  } catch (error) {
    outcome = { ok: false, detail: error.message };
  }
  const seconds = (Date.now() - t0) / 1000;
  if (together) {
    console.log(`\n━━ ${stage.name} (ended after ${seconds.toFixed(1)}s) ━━`);
    process.stdout.write(out.text());
  }
  return { name: stage.name, fatal: stage.fatal, ...outcome, seconds };
}

rmSync(join(root, 'test-results'), { recursive: true, force: true });
const started = Date.now();
const results = [];
for (const group of groups) {
  const outcomes = await Promise.all(group.map(stage => runStage(stage, group.length > 1)));
  results.push(...outcomes);
  if (outcomes.some(r => !r.ok && r.fatal)) break;
}

const width = Math.max(...stages.map(s => s.name.length));
console.log(`\n━━ summary${quick ? ' (quick: no lint, type-check or real-VS-Code layers; the race hunts shorter)' : ''} ━━`);
for (const r of results) {
  console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(6)}s  ${r.detail}`);
}
for (const skipped of stages.slice(results.length)) console.log(`NOT RUN  ${skipped.name} (an earlier build step failed)`);
for (const r of results.filter(r => r.failures?.length)) {
  console.log(`\n━━ ${r.name}: ${r.failures.length} failure(s), in the order they happened (details above) ━━`);
  for (const [i, failure] of r.failures.entries()) console.log(`  ${i + 1}) ${failure}`);
}
const failed = results.filter(r => !r.ok).length + (stages.length - results.length);
console.log(`${failed === 0 ? 'all passed' : `${failed} stage(s) failed or did not run`} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
if (existsSync(join(root, 'test-results'))) console.log(`screenshots and logs: ${join(root, 'test-results')}`);
process.exit(failed === 0 ? 0 : 1);
