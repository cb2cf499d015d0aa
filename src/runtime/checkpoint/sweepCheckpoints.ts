// Checkpoints are bounded by fork.retention.days: each shadow repository logs when it wrote each tree
// (`<shadow>/fork-agents-trees.log`); a sweep keeps the trees of the last `days` days reachable through
// refs of the shadow's own (refs/keep/<tree>, never in the user's repository), drops the rest, and lets
// `git prune` remove what no kept tree needs. Objects written in the last hour stay whatever happens, so
// a checkpoint being written while the sweep runs is never cut.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { git } from '../git/run';
import { log } from '../log';
import { borrowedEnv, borrowedFrom, checkpointsDir, removeShadow } from './shadowRepo';

const LOG_NAME = 'fork-agents-trees.log';
const DAY_MS = 24 * 3600_000;

/** Notes that `tree` was (re)written now: what the sweep keeps by age. */
export async function noteTree(gitDir: string, tree: string): Promise<void> {
  await fs.appendFile(path.join(gitDir, LOG_NAME), `${Date.now()} ${tree}\n`, { mode: 0o600 });
}

/** Sweeps every shadow repository of the store; returns how many were removed entirely (no tree left). */
export async function sweepCheckpoints(storeDir: string, days: number, now = Date.now()): Promise<number> {
  const dir = checkpointsDir(storeDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names.filter(n => n.endsWith('.git'))) {
    try {
      if (await sweepOne(path.join(dir, name), now - days * DAY_MS)) removed++;
    } catch (error) {
      log(`checkpoint sweep of ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return removed;
}

async function sweepOne(gitDir: string, cutoff: number): Promise<boolean> {
  const file = path.join(gitDir, LOG_NAME);
  const lines = (await fs.readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const kept = new Map<string, number>();
  for (const line of lines) {
    const [time, tree] = line.split(' ');
    if (Number(time) >= cutoff && /^[0-9a-f]{40,64}$/.test(tree)) kept.set(tree, Number(time));
  }
  if (kept.size === 0) {
    // Nothing recent: the whole shadow goes (a later checkpoint makes it again, seeded afresh).
    await removeShadow(gitDir);
    return true;
  }
  const env = borrowedEnv(await borrowedFrom(gitDir));
  const run = (args: string[], input?: string) => git(gitDir, [`--git-dir=${gitDir}`, ...args], input === undefined ? { env } : { env, input });
  const refs = (await run(['for-each-ref', '--format=%(refname)', 'refs/keep/'])).stdout.split('\n').filter(Boolean);
  const commands = [
    ...refs.filter(ref => !kept.has(ref.slice('refs/keep/'.length))).map(ref => `delete ${ref}`),
    ...[...kept.keys()].filter(tree => !refs.includes(`refs/keep/${tree}`)).map(tree => `create refs/keep/${tree} ${tree}`),
  ];
  if (commands.length > 0) await run(['update-ref', '--stdin'], commands.join('\n') + '\n');
  // Not through the shadow's index: after index-free checkpoints it may still hold an older tree's
  // entries (takeCheckpoint.ts brings it up to date before it is used), which would keep that tree's
  // objects past the retention. The newest tree is always among the kept, and a checkpoint under way
  // writes objects younger than the hour.
  await git(gitDir, [`--git-dir=${gitDir}`, 'prune', '--expire=1.hour.ago'], { env: { ...env, GIT_INDEX_FILE: path.join(gitDir, 'no-index') } });
  const rewritten = [...kept].map(([tree, time]) => `${time} ${tree}\n`).join('');
  await fs.writeFile(`${file}.tmp`, rewritten, { mode: 0o600 });
  await fs.rename(`${file}.tmp`, file);
  return false;
}
