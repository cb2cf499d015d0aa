// V8's compiled code of what the runtime loads after start-up (dist/lazy/: the model SDKs, MCP, undici),
// kept on disk by Node 22.1+ (module.enableCompileCache) so a later runtime of the store skips compiling it.
// Node 20 has no such cache: there nothing happens. The cache lives in the store, which only this user can
// enter: compiled code someone else could write would be code this runtime runs.
import * as nodeModule from 'node:module';
import * as path from 'node:path';

type EnableCompileCache = (directory: string) => unknown;

export function enableCompileCache(storeDir: string): void {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return;
  try {
    enable(path.join(storeDir, 'compile-cache'));
  } catch {
    // Only a speed-up: without it every start compiles, as on Node 20.
  }
}
