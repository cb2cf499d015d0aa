// Defaults shared by the extension host and the runtime.
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_MAX_TOKENS = 16_000;
/**
 * Forks running at once; more queue. Chosen from `npm run bench` fork-concurrency (50 siblings against a
 * model-like fake, docs/benchmarks.md): 8 finished them in 60% of the time of 4 with the runtime's event
 * delay p99 at 26 ms; 16 was faster still but doubled that delay, past 50 ms; 50 was no faster and stalled
 * the runtime.
 */
export const DEFAULT_MAX_CONCURRENT_FORKS = 8;
