// For a describe block of worktree-fork tests: one runtime, and before each test a fresh store whose
// workspace root is a real git repository, forks scripted by a word of their directive (scriptForks), and a
// chat of one answered turn to fork from.
import * as fs from 'node:fs';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams, ForkStartResult, ForkWaitResult } from '../../src/common/protocol/forks';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { scriptForks } from './gitRepo';
import { useSharedHarness } from './harness';
import type { Harness } from './harness';

export interface WorktreeChat {
  readonly h: Harness;
  /** The repository: the harness's workspace root, by its real path. */
  readonly repo: string;
  /** This test's fork scripts, keyed by a word of the directive (scriptForks). */
  readonly scripts: Map<string, ScriptedTurn[]>;
  /** The chat the forks start from. */
  readonly sessionId: string;
  /** fork/start from the chat. */
  start(directive: string, extra?: Partial<ForkStartParams>): Promise<ForkStartResult>;
  /** fork/wait. */
  wait(forkId: string): Promise<ForkWaitResult>;
}

/** `prepare` makes the repository in the (empty) root: at least initRepo. */
export function useWorktreeChat(prepare: (repo: string) => void): WorktreeChat {
  const h = useSharedHarness();
  let current: { repo: string; scripts: Map<string, ScriptedTurn[]>; sessionId: string } | undefined;
  const now = () => {
    if (!current) throw new Error('the worktree chat exists only inside a test');
    return current;
  };
  beforeEach(async () => {
    current = undefined;
    const repo = fs.realpathSync(h.root);
    prepare(repo);
    const scripts = scriptForks(h);
    current = { repo, scripts, sessionId: (await h.send('hello')).sessionId };
  });
  return {
    h,
    get repo() { return now().repo; },
    get scripts() { return now().scripts; },
    get sessionId() { return now().sessionId; },
    start: (directive, extra = {}) => sendRequest(h.client.endpoint, forkStart, { sessionId: now().sessionId, directive, ...extra }),
    wait: forkId => sendRequest(h.client.endpoint, forkWait, { forkId }),
  };
}
