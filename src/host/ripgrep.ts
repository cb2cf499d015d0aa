// The ripgrep binary VS Code ships: the runtime's grep tool uses it when we pass a path.
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Older builds ship `@vscode/ripgrep/bin/rg`; newer ones (1.13x) `@vscode/ripgrep-universal/bin/<os>-<arch>/rg`.
 * Desktop builds keep native binaries in `node_modules.asar.unpacked`.
 */
export function findRipgrep(
  appRoot: string,
  platform: string = process.platform,
  arch: string = process.arch,
  exists: (file: string) => boolean = fs.existsSync,
): string | undefined {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const relatives = [path.join('@vscode', 'ripgrep', 'bin', exe), path.join('@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe)];
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    for (const relative of relatives) {
      const candidate = path.join(appRoot, modules, relative);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}
