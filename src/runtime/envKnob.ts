// Waits and caps tests inject through the runtime's environment, so they need not wait out production's
// values (docs/design.md §8): a positive whole number replaces the default; anything else keeps it.
export function positiveWholeFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
