// For a describe block of worktree-fork tests: one runtime, and before each test a fresh store whose
// workspace root is a real git repository, forks scripted by a word of their directive (scriptForks), and a
// chat of one answered turn to fork from.
import * as fs from 'node:fs';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams, ForkStartResult, ForkWaitResult } from '../../src/common/protocol/forks';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { scriptForks } from './gitRepo';
import { startHarness } from './harness';
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
  let h: Harness | undefined;
  let current: { repo: string; scripts: Map<string, ScriptedTurn[]>; sessionId: string } | undefined;
  const harness = () => {
    if (!h) throw new Error('the worktree chat exists only inside a test');
    return h;
  };
  const now = () => {
    if (!current) throw new Error('the worktree chat exists only inside a test');
    return current;
  };
  before(async () => {
    h = await startHarness();
  });
  beforeEach(async () => {
    current = undefined;
    await harness().renew();
    const repo = fs.realpathSync(harness().root);
    prepare(repo);
    const scripts = scriptForks(harness());
    current = { repo, scripts, sessionId: (await harness().send('hello')).sessionId };
  });
  after(() => h?.dispose());
  return {
    get h() { return harness(); },
    get repo() { return now().repo; },
    get scripts() { return now().scripts; },
    get sessionId() { return now().sessionId; },
    start: (directive, extra = {}) => sendRequest(harness().client.endpoint, forkStart, { sessionId: now().sessionId, directive, ...extra }),
    wait: forkId => sendRequest(harness().client.endpoint, forkWait, { forkId }),
  };
}
