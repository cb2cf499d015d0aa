// A checkpoint's tree made readable in the user's repository, for a fork that starts from it: the trees
// and blobs the repository lacks are packed from the shadow and unpacked there. Objects only — no ref,
// branch or index of the user's changes; the fork's base commit (createWorktree.ts) then names the tree.
import { git, gitBytes, gitOk } from '../git/run';
import { serialized, shadowArgs, shadowGitOk, shadowOptions } from './shadowRepo';
import type { ShadowRepo } from './shadowRepo';

export async function copyTreeToRepo(shadow: ShadowRepo, tree: string): Promise<void> {
  const listing = await shadowGitOk(shadow, ['ls-tree', '-r', '-t', '-z', tree]);
  const ids = new Set<string>([tree]);
  for (const line of listing.split('\0')) {
    const [meta] = line.split('\t');
    const [, type, id] = meta.split(' ');
    // Submodule commits (gitlinks) are the submodule's, not ours to copy.
    if (type === 'tree' || type === 'blob') ids.add(id);
  }
  const check = await gitOk(shadow.workTree, ['cat-file', '--batch-check'], { input: [...ids].join('\n') + '\n' });
  const missing = check.split('\n').filter(line => line.endsWith(' missing')).map(line => line.split(' ')[0]);
  if (missing.length === 0) return;
  const pack = await serialized(shadow, () =>
    gitBytes(shadow.workTree, shadowArgs(shadow, ['pack-objects', '--stdout', '-q']), shadowOptions(shadow, { input: missing.join('\n') + '\n', timeoutMs: 10 * 60_000 })));
  if (pack.code !== 0) throw new Error(`git pack-objects failed (exit ${pack.code}): ${pack.stderr.trim()}`);
  const unpacked = await git(shadow.workTree, ['unpack-objects', '-q'], { input: pack.stdout, timeoutMs: 10 * 60_000 });
  if (unpacked.code !== 0) throw new Error(`git unpack-objects failed (exit ${unpacked.code}): ${unpacked.stderr.trim()}`);
}
