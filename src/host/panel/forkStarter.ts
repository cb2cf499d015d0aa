// Starting a fork of the current chat session — one path for the panel's form, its transcript's
// "Fork from here", the palette's `Fork: New Directive` and the context menu, so all validate alike.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForkSummary, Isolation } from '../../common/forks';
import { forkTurnsToString, parseForkTurns } from '../../common/forkTurns';
import { forkStart, tournamentStart } from '../../common/protocol/forks';
import type { RuntimeApi } from '../runtimeApi';
import type { CurrentChatSession } from './currentSession';
import type { PanelModel } from './panelModel';

export const NO_SESSION_MESSAGE = 'No chat session to fork yet: ask @fork something in the Chat view first.';

/** `model`: another model than the chat's (the runtime records it; the fork starts with a cold cache). */
export interface StartRequest {
  directive: string; forkTurns: string; isolation?: Isolation; atEntryId?: string; model?: string;
  /** More than 1: a tournament of that many worktree attempts (`models` per attempt, cycled). */
  attempts?: number;
  models?: string[];
}

export class ForkStarter {
  constructor(private readonly runtime: RuntimeApi, private readonly session: CurrentChatSession, private readonly model: PanelModel) {}

  get sessionId(): string | undefined {
    return this.session.sessionId;
  }

  async start(request: StartRequest): Promise<ForkSummary> {
    const sessionId = this.session.sessionId;
    if (!sessionId) throw new Error(NO_SESSION_MESSAGE);
    const directive = request.directive.trim();
    if (directive === '') throw new Error('Say what the fork should do.');
    const turns = parseForkTurns(request.forkTurns, 'user');
    if (!turns.ok) throw new Error(turns.error);
    if ((request.attempts ?? 1) > 1 || (request.models?.length ?? 0) > 1) {
      const { attempts } = await this.runtime.request(tournamentStart, {
        sessionId, directive, forkTurns: forkTurnsToString(turns.value), atEntryId: request.atEntryId, origin: request.atEntryId ? 'message' : 'user',
        attempts: request.attempts, ...(request.models?.length ? { models: request.models } : {}),
      });
      for (const attempt of attempts) this.model.addForkIfNew(attempt);
      return attempts[0];
    }
    const fork = await this.runtime.request(forkStart, {
      sessionId, directive, forkTurns: forkTurnsToString(turns.value), isolation: request.isolation,
      atEntryId: request.atEntryId, origin: request.atEntryId ? 'message' : 'user', ...(request.model ? { model: request.model } : {}),
    });
    // fork/state may have overtaken this answer with a newer state: never go back to it.
    this.model.addForkIfNew(fork);
    return fork;
  }
}

/** docs/design.md §4.8: worktree in a git repository, shared elsewhere. */
export function defaultIsolation(): Isolation {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root || root.scheme !== 'file') return 'shared';
  for (let dir = root.fsPath; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return 'worktree';
    if (path.dirname(dir) === dir) return 'shared';
  }
}
