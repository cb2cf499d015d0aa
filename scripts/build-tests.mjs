// Compiles src/, test/ and scripts/ (the e2e harness) file by file (no bundling) into out/ so mocha runs plain CommonJS.
import { build } from 'esbuild';
import { existsSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

function tsFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...tsFiles(full));
    else if (full.endsWith('.ts') && !full.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

rmSync('out', { recursive: true, force: true });
await build({
  entryPoints: [...tsFiles('src'), ...tsFiles('test'), ...(existsSync('scripts') ? tsFiles('scripts') : [])],
  outdir: 'out',
  outbase: '.',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
});
