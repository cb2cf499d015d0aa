// Runtime log lines go to stderr (the runtime.log file when detached). Never pass secrets here.
let quiet = false;

export function log(message: string): void {
  if (quiet) return;
  process.stderr.write(`[${new Date().toISOString()}] ${message}\n`);
}

/** fork-agents doctor reports what loading finds itself, in its own words: the log lines would repeat it on the terminal. */
export function silenceLog(): void {
  quiet = true;
}
