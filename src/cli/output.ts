// CLI output helpers: JSON lines on stdout, and the failure type that maps to exit code 1.

export class CliFailure extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}
