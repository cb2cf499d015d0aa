// Runtime log lines go to stderr (the runtime.log file when detached). Never pass secrets here.
export function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString()}] ${message}\n`);
}
