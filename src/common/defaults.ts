// Defaults shared by the extension host and the runtime.
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_MAX_TOKENS = 16_000;
/**
 * Forks running at once; more queue. Chosen from `npm run bench` fork-concurrency (50 siblings against a
 * model-like fake, docs/benchmarks.md): 8 finished them in about half the time of 4, while 16 and 50 gained
 * no time and cost responsiveness and memory (RSS peak past 200 MB).
 */
export const DEFAULT_MAX_CONCURRENT_FORKS = 8;
