// Start-up pruning of fork worktrees (docs/design.md §4.8) for every repository this store's sessions work in,
// and the record of what was pruned or kept, for `worktree/list`.
import * as fs from 'node:fs';
import type { WorktreeListing } from '../../../common/protocol/forks';
import { pruneStaleWorktrees } from '../../git/prune';
import { gitCommonDir, repoTopLevel } from '../../git/repo';
import { log } from '../../log';
import type { SessionStore } from '../../session/sessionStore';

export class WorktreeJanitor {
  private startup?: Promise<void>;
  /** Prunes run one at a time: two passes over one repository must not race on the same worktree. */
  private chain: Promise<void> = Promise.resolve();
  private readonly pruned = new Map<string, WorktreeListing>();
  private readonly kept = new Map<string, WorktreeListing>();

  constructor(private readonly store: SessionStore, private readonly liveForkIds: () => ReadonlySet<string>) {}

  /** Once per runtime; failures are logged, never thrown (a broken repository must not stop the runtime). */
  pruneAtStartup(): Promise<void> {
    this.startup ??= (async () => {
      const roots = new Set(this.store.listHeaders().filter(header => !header.parent).map(header => header.root));
      const seen = new Set<string>();
      for (const root of roots) {
        if (!fs.existsSync(root)) continue;
        const top = await repoTopLevel(root).catch(() => null);
        if (!top) continue;
        // Linked worktrees of one repository share its admin folder: one pass covers them all.
        const common = await gitCommonDir(top).catch(() => top);
        if (seen.has(common)) continue;
        seen.add(common);
        await this.prune(top);
      }
    })();
    return this.startup;
  }

  /** Prunes one repository now (the folder may be anywhere inside it). */
  prune(root: string): Promise<void> {
    const pass = this.chain.then(async () => {
      try {
        const result = await pruneStaleWorktrees(root, this.liveForkIds(), this.store.storeDir);
        for (const listing of result.pruned) {
          this.pruned.set(listing.path, listing);
          this.kept.delete(listing.path);
          log(`pruned the worktree ${listing.path} of fork ${listing.forkId} (the fork no longer exists)`);
        }
        for (const listing of result.kept) this.kept.set(listing.path, listing);
      } catch (error) {
        log(`pruning worktrees of ${root} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    this.chain = pass;
    return pass;
  }

  async list(root?: string): Promise<{ pruned: WorktreeListing[]; kept: WorktreeListing[] }> {
    await this.pruneAtStartup();
    if (root) await this.prune(root);
    return { pruned: [...this.pruned.values()], kept: [...this.kept.values()] };
  }
}
