// --prices FILE (or FORK_AGENTS_PRICES=FILE): the CLI's way to give model prices, a JSON file in the shape of
// the editor's fork.prices setting ({ "model-id": { "input": 2, "output": 10, "cacheRead": 0.1 } }, dollars
// per million tokens). A bad file exits 2 before anything is configured.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePriceOverrides } from '../common/pricing';
import type { PriceOverrides } from '../common/pricing';
import { UsageError } from './args';
import type { ParsedArgs } from './args';

export function cliPrices(args: ParsedArgs, env: NodeJS.ProcessEnv): PriceOverrides | undefined {
  const given = args.flags.get('prices') ?? (env.FORK_AGENTS_PRICES || undefined);
  if (given === undefined) return undefined;
  const where = args.flags.has('prices') ? '--prices' : 'FORK_AGENTS_PRICES';
  const file = path.resolve(given);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${where}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where}: ${file} is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const { prices, errors } = parsePriceOverrides(value, path.basename(file));
  if (errors.length > 0) throw new UsageError(`${where}: ${errors.join(' ')}`);
  return prices;
}
