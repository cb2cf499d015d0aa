// The default verify command when neither --verify nor fork.tournament.verify names one: the project's
// own test script, found from its manifest (read only, never run here). None found: no verify stage.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** fork.tournament.verify, else the project's test script, else none. */
export function defaultVerify(access: { tournamentVerify?: string }, root: string): string | undefined {
  return access.tournamentVerify || detectTestCommand(root);
}

/** npm's placeholder for a package without tests: running it always fails. */
const NPM_PLACEHOLDER = /no test specified/;

export function detectTestCommand(root: string): string | undefined {
  const pkg = readJson(path.join(root, 'package.json')) as { scripts?: Record<string, unknown> } | undefined;
  const test = pkg?.scripts?.test;
  if (typeof test === 'string' && test.trim() !== '' && !NPM_PLACEHOLDER.test(test)) return 'npm test';
  if (fs.existsSync(path.join(root, 'Cargo.toml'))) return 'cargo test';
  if (fs.existsSync(path.join(root, 'go.mod'))) return 'go test ./...';
  return undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
