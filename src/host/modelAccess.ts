// Where model access comes from (docs/design.md §5). Pure: the vscode side passes in what it read.

/** The SDK's default endpoint; shown in messages when neither the setting nor the env names one. */
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** SecretStorage wins over the environment, so a key set in the editor overrides a stale shell export. */
export function resolveApiKey(stored: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return nonEmpty(stored) ?? nonEmpty(env.ANTHROPIC_API_KEY);
}

/** The `fork.anthropic.baseUrl` setting, then ANTHROPIC_BASE_URL; undefined means the SDK default. */
export function resolveBaseUrl(setting: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return nonEmpty(setting) ?? nonEmpty(env.ANTHROPIC_BASE_URL);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
