#!/usr/bin/env node
// `npm test`: every test layer, in order — build, no `.only`, type-check, unit, runtime, conformance, the extension-host
// suite inside a real VS Code (code-server) and the UI checks in chromium. Exits non-zero if anything
// fails; the real-VS-Code layers fail (never skip) when their tools are missing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
process.chdir(root);
const node = process.execPath;
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const color = process.stdout.isTTY ? ['--color'] : [];

let current; // the running stage's child, stopped on Ctrl-C
process.on('SIGINT', () => {
  if (current) kill(current);
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
function run(command, args, { finishedWhen, graceMs = 15_000, timeoutMs = 10 * 60_000 } = {}) {
  return new Promise(resolve => {
    // Own process group, so stopping it also stops what it started.
    const child = spawn(command, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
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
    child.stdout.on('data', copy(process.stdout));
    child.stderr.on('data', copy(process.stderr));
    child.on('error', error => {
      verdict = error.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(hardTimer);
      clearTimeout(graceTimer);
      current = undefined;
      if (verdict) console.error(`\n${command === node ? args[0] : command}: ${verdict}`);
      resolve({ code: verdict ? 1 : code ?? (signal ? 128 : 1), output, verdict });
    });
  });
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

const mochaStage = (name, spec, timeout) => ({
  name,
  async run() {
    const result = await run(node, [mocha, '--forbid-only', '--timeout', String(timeout), ...color, spec], { finishedWhen: MOCHA_DONE });
    return { ok: result.code === 0, detail: describe(result) };
  },
});

const e2eStage = (name, args, summary) => ({
  name,
  async run() {
    const problem = await e2eToolsProblem();
    if (problem) {
      console.error(`\n${name}: ${problem}`);
      return { ok: false, detail: 'code-server/chromium missing (run scripts/e2e/setup.sh)' };
    }
    const result = await run(node, args, { finishedWhen: MOCHA_DONE, graceMs: 60_000 });
    return { ok: result.code === 0, detail: describe(result, summary) };
  },
});

const stages = [
  {
    name: 'build (esbuild.mjs)',
    fatal: true,
    async run() {
      const result = await run(node, ['esbuild.mjs']);
      const missing = ['extension', 'runtime', 'cli', 'fake-anthropic'].filter(b => !existsSync(join(root, 'dist', `${b}.js`)));
      if (result.code === 0 && missing.length > 0) return { ok: false, detail: `no dist/${missing.join('.js, dist/')}.js` };
      return { ok: result.code === 0, detail: result.code === 0 ? 'dist/' : `exit ${result.code}` };
    },
  },
  {
    name: 'build tests (build-tests.mjs)',
    fatal: true,
    async run() {
      const result = await run(node, ['scripts/build-tests.mjs']);
      return { ok: result.code === 0, detail: result.code === 0 ? 'out/' : `exit ${result.code}` };
    },
  },
  {
    name: 'no .only( in test/',
    async run() {
      const hits = findOnly();
      for (const hit of hits) console.error(`  ${hit}`);
      return { ok: hits.length === 0, detail: hits.length === 0 ? 'none' : `${hits.length} found` };
    },
  },
  ...[['type-check', 'tsconfig.json'], ['type-check webview', 'webview/tsconfig.json']]
    .filter(([, config]) => existsSync(join(root, config)))
    .map(([name, config]) => ({
      name,
      async run() {
        const result = await run(node, [tsc, '-p', config, '--noEmit', '--pretty', process.stdout.isTTY ? 'true' : 'false']);
        const errors = plain(result.output).match(/Found (\d+) errors?/)?.[1];
        return { ok: result.code === 0, detail: result.code === 0 ? 'no errors' : `${errors ?? 'some'} error(s)` };
      },
    })),
  mochaStage('unit tests', 'out/test/unit/**/*.test.js', 10_000),
  mochaStage('runtime tests', 'out/test/runtime/**/*.test.js', 30_000),
  {
    // The peers' own fork tests restated in our terms (test/conformance): same / deliberately different / not expressible.
    name: 'conformance with the peers',
    async run() {
      const result = await run(node, [mocha, '--forbid-only', '--timeout', '60000', ...color, 'out/test/conformance/**/*.test.js'], { finishedWhen: MOCHA_DONE });
      const line = plain(result.output).match(/conformance with the peers: ([^\n]*)/)?.[1];
      return { ok: result.code === 0, detail: [line, describe(result)].filter(Boolean).join('; ') };
    },
  },
  e2eStage('extension-host tests (code-server)', ['out/scripts/e2e/extensionTests.js'], mochaSummary),
  e2eStage('UI checks (code-server + chromium)', [mocha, '--forbid-only', '--timeout', '120000', ...color, 'out/test/e2e/**/*.test.js'], mochaSummary),
];

rmSync(join(root, 'test-results'), { recursive: true, force: true });
const started = Date.now();
const results = [];
for (const stage of stages) {
  console.log(`\n━━ ${stage.name} ━━`);
  const t0 = Date.now();
  let outcome;
  try {
    outcome = await stage.run();
  } catch (error) {
    outcome = { ok: false, detail: error.message };
  }
  results.push({ name: stage.name, ...outcome, seconds: (Date.now() - t0) / 1000 });
  if (!outcome.ok && stage.fatal) break;
}

const width = Math.max(...stages.map(s => s.name.length));
console.log('\n━━ summary ━━');
for (const r of results) {
  console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(6)}s  ${r.detail}`);
}
for (const skipped of stages.slice(results.length)) console.log(`NOT RUN  ${skipped.name} (an earlier build step failed)`);
const failed = results.filter(r => !r.ok).length + (stages.length - results.length);
console.log(`${failed === 0 ? 'all passed' : `${failed} stage(s) failed or did not run`} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
if (existsSync(join(root, 'test-results'))) console.log(`screenshots and logs: ${join(root, 'test-results')}`);
process.exit(failed === 0 ? 0 : 1);
