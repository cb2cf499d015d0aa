// Defaults shared by the extension host and the runtime.
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_MAX_TOKENS = 16_000;
export const DEFAULT_MAX_CONCURRENT_FORKS = 4;
