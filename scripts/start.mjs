#!/usr/bin/env node
// `npm start` — the main job: a real VS Code (code-server) with Fork Agents installed, on a fresh copy of
// the sample git workspace; prints the URL and runs until Ctrl-C.
//   npm start                      uses ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL (or "Fork: Set Anthropic API Key")
//   npm start -- --demo            uses the local scripted demo model: no key, no network
//   npm start -- --port 9000       another port (default 8080); --host 0.0.0.0 to listen beyond this machine
import { spawnSync } from 'node:child_process';
import * as net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
process.chdir(root);

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      demo: { type: 'boolean', default: false },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail(`${error.message}\nusage: npm start [-- --demo] [--port N] [--host ADDR]`, 2);
}
if (options.help) {
  console.log('usage: npm start [-- --demo] [--port N] [--host ADDR]');
  process.exit(0);
}
const port = Number(options.port);
if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`--port needs a port number, got "${options.port}"`, 2);

function fail(message, code = 1) {
  console.error(`npm start: ${message}`);
  process.exit(code);
}

function step(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) fail(`${what} failed (exit ${result.status ?? result.signal})`);
}

function portFree(p, host) {
  return new Promise(resolve => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(p, host, () => server.close(() => resolve(true)));
  });
}

// 1. Build the extension bundles and the launcher (the e2e harness, shared with the tests).
step(process.execPath, ['esbuild.mjs'], 'building the extension (node esbuild.mjs)');
const { build } = await import('esbuild');
const harness = ['tools', 'processes', 'fakeAnthropic', 'workspace', 'codeServer', 'stack'];
await build({
  entryPoints: harness.map(name => `scripts/e2e/${name}.ts`),
  outdir: 'out',
  outbase: '.',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const load = async name => import(pathToFileURL(join(root, 'out', 'scripts', 'e2e', `${name}.js`)).href);
const { findE2eTools, e2eCacheDir } = await load('tools');
const { startStack } = await load('stack');

// 2. code-server, its Node 24 and chromium live in a cache outside the repo; install them once.
let found = findE2eTools();
if ('problem' in found) {
  console.log(`Installing code-server and Node 24 into ${e2eCacheDir()} (once, a few minutes)...`);
  step('bash', [join(root, 'scripts', 'e2e', 'setup.sh'), e2eCacheDir()], 'scripts/e2e/setup.sh');
  found = findE2eTools();
  if ('problem' in found) fail(found.problem);
}
if (!(await portFree(port, options.host))) fail(`port ${port} is in use on ${options.host}; pick another with: npm start -- --port N`);

if (!options.demo && !process.env.ANTHROPIC_API_KEY) {
  console.log('No ANTHROPIC_API_KEY in the environment: set one in the editor with "Fork: Set Anthropic API Key",');
  console.log('or run `npm start -- --demo` to try the local demo model.');
}

// 3. Fresh git workspace, store and code-server with the extension installed (plus the demo model).
const stack = await startStack({
  tools: found.tools,
  extension: 'install',
  fake: options.demo,
  // The demo streams at a visible pace, like a real model.
  streamDelayMs: options.demo ? 40 : undefined,
  port,
  host: options.host,
  label: 'start',
}).catch(error => fail(error.message));
let stopping = false;
const shutdown = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping code-server...');
  await stack.stop();
  process.exit(code);
};
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
stack.codeServer.exited.then(() => {
  if (stopping) return;
  console.error(`code-server exited unexpectedly; its log: ${stack.codeServer.logFile}`);
  void shutdown(1);
});

const url = stack.codeServer.workbenchUrl(stack.workspace.workspaceFile);
console.log('');
console.log(`Fork Agents is running in VS Code (code-server)${options.demo ? ' with the local demo model' : ''}.`);
console.log(`  workspace: ${stack.workspace.folder} (a git repo)`);
if (stack.fake) console.log(`  demo model: ${stack.fake.url}`);
console.log('  Open the Chat view (Ctrl+Alt+I) and type:  @fork list the files and read README.md');
console.log('  Ctrl-C stops everything.');
console.log('');
console.log(url);
