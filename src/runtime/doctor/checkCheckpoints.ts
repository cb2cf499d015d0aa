// fork-agents doctor, the checkpoint repositories (<store>/checkpoints/<hash>.git, checkpoint/shadowRepo.ts):
// each a private folder git can open, without a lock file a killed runtime left (git refuses the next
// checkpoint while one is there).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkpointsDir } from '../checkpoint/shadowRepo';
import { git } from '../git/run';
import type { DoctorContext } from './findings';
import { count, repairable, unrepairable } from './findings';
import { checkMode } from './checkStoreFiles';

export async function checkCheckpoints(ctx: DoctorContext): Promise<void> {
  const dir = checkpointsDir(ctx.storeDir);
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith('.git')) continue;
    const repo = path.join(dir, name);
    count(ctx, 'checkpoint repositories');
    await checkMode(ctx, repo, 'folder');
    const opened = await git(dir, [`--git-dir=${repo}`, 'rev-parse', '--git-dir']);
    if (opened.code !== 0) {
      unrepairable(ctx, { check: 'checkpoint', subject: repo, found: `git cannot open it: ${opened.stderr.trim().split('\n')[0]}` }, 'left as it is: rewinds to its checkpoints will fail; a new checkpoint needs it removed');
      continue;
    }
    const lock = path.join(repo, 'index.lock');
    if (!fs.existsSync(lock)) continue;
    if (ctx.liveOwner !== undefined) {
      ctx.findings.push({ check: 'checkpoint', subject: lock, status: 'note', found: 'an index lock (the runtime serving the store may be taking a checkpoint now)' });
      continue;
    }
    await repairable(ctx, { check: 'checkpoint', subject: lock, found: 'an index lock left by a runtime killed mid-checkpoint: the next checkpoint would fail' }, () => {
      fs.rmSync(lock, { force: true });
      return 'removed';
    });
  }
}
