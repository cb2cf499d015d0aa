// What one run of a fork needs around its agent loop: the per-fork environment of its tool
// processes (ids, roots, a block of ports), the preparation of a new worktree (ignored files, links,
// setup commands) that its first tool call waits for, and the end of whatever those processes left
// running. The fork manager creates one per run.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../common/agentEvents';
import type { ForkSetupState, ForkSummary, ForkWorktree } from '../../../common/forks';
import type { WorktreeOptions } from '../../../common/worktreeOptions';
import { DEFAULT_SETUP_TIMEOUT_MS, WORKTREE_INCLUDE_FILE } from '../../../common/worktreeOptions';
import type { Session } from '../../session/session';
import type { CommandSandbox, Tool, ToolOutput } from '../../tools/types';
import type { PortBlocks } from './forkPorts';
import { ProcessGroups } from './processGroups';
import { runSetupCommand } from './setupCommand';
import type { SetupResult } from './setupCommand';
import { settleSetupBase } from './setupBase';
import { bringIgnoredFiles } from './worktreeFiles';

/** Marks the transcript reminder of a finished preparation: a fork that has one is not prepared again. */
export const SETUP_TAG = 'worktree-setup';
const TAIL_LINES = 15;

export interface WorkspaceDeps {
  summary: ForkSummary;
  session: Session;
  /** The parent session's root (FORK_AGENTS_PARENT_ROOT). */
  parentRoot: string;
  options?: WorktreeOptions;
  ports: PortBlocks;
  emit(event: AgentEvent): void;
  /** The summary changed (setup state, base, ports). */
  changed(patch: Partial<ForkSummary>): void;
  /** Preparation failed: the fork must stop with this reason. */
  failed(reason: string): void;
  signal: AbortSignal;
  /** The fork's sandbox: setup commands run in it like the fork's own. */
  sandbox?: CommandSandbox;
}

export class ForkWorkspace {
  readonly groups: ProcessGroups;
  env: Record<string, string> = {};
  private preparation?: Promise<void>;
  private failure?: string;
  private reminder?: string;
  private requests = 0;

  constructor(private readonly deps: WorkspaceDeps) {
    this.groups = new ProcessGroups(deps.summary.id);
  }

  /** The reason the fork failed in preparation, if it did. */
  get failureReason(): string | undefined {
    return this.failure;
  }

  /** Takes a port block, builds the environment and, for a worktree not yet prepared, starts preparing it. */
  async begin(): Promise<void> {
    const { summary, options } = this.deps;
    const portBase = await this.deps.ports.acquire(summary.id, options?.portRange, options?.portBlock);
    const env: Record<string, string> = { FORK_AGENTS_FORK_ID: summary.id, FORK_AGENTS_PARENT_ROOT: this.deps.parentRoot };
    if (summary.worktree) env.FORK_AGENTS_WORKTREE = summary.worktree.path;
    if (portBase !== undefined) {
      env.FORK_AGENTS_PORT_BASE = String(portBase);
      // The user's own PORT wins: they set it for a reason.
      if (process.env.PORT === undefined) env.PORT = String(portBase);
    }
    this.env = env;
    this.deps.changed({ portBase });
    const worktree = summary.worktree;
    if (worktree && !worktree.discarded && hasWork(worktree, options) && !this.alreadyPrepared()) this.preparation = this.prepare(worktree);
  }

  /** Settles when the worktree's preparation has (or there is none); never rejects. */
  prepared(): Promise<void> {
    // Safe to drop: a failed preparation is the fork's failure (failureReason), reported where it ran.
    return (this.preparation ?? Promise.resolve()).then(() => undefined, () => undefined);
  }

  /** The tools, each waiting for the preparation before it runs (the first model request does not wait). */
  gatedTools(tools: ReadonlyMap<string, Tool>): ReadonlyMap<string, Tool> {
    if (!this.preparation) return tools;
    const gated = new Map<string, Tool>();
    for (const [name, tool] of tools) {
      gated.set(name, {
        ...tool,
        run: async (input, ctx): Promise<ToolOutput> => {
          await this.preparation;
          if (this.failure) return { content: `Not run: ${this.failure}`, isError: true };
          return tool.run(input, ctx);
        },
      });
    }
    return gated;
  }

  /** Before each model request: once the first one went out, the preparation's reminder joins the history. */
  beforeRequest(): void {
    this.requests++;
    if (this.requests > 1) this.commitReminder();
  }

  /** After the loop: waits for a preparation still running and records it. */
  async settle(): Promise<void> {
    await this.preparation;
    this.commitReminder();
  }

  /** Ends what the fork's processes left running and gives its ports back; returns how many processes ended. */
  async end(): Promise<number> {
    // Safe to drop: its failure was reported to the fork when it happened; ending only waits for it to settle.
    await this.preparation?.catch(() => undefined);
    const ended = await this.groups.endAll();
    this.deps.ports.release(this.deps.summary.id);
    return ended;
  }

  private alreadyPrepared(): boolean {
    return this.deps.session.ownEntries().some(entry => entry.kind === 'reminder' &&
      entry.message.content.some(block => block.type === 'text' && block.text.includes(`<${SETUP_TAG}>`)));
  }

  private commitReminder(): void {
    if (!this.reminder) return;
    const text = this.reminder;
    this.reminder = undefined;
    const entry = this.deps.session.commit('reminder', { role: 'user', content: [{ type: 'text', text }] });
    this.deps.emit({ type: 'entry', entry });
  }

  private async prepare(worktree: ForkWorktree): Promise<void> {
    const { options, emit } = this.deps;
    const commands = options?.setup ?? [];
    const state: ForkSetupState = { state: 'running' };
    const show = (patch: Partial<ForkSetupState>) => {
      Object.assign(state, patch);
      this.deps.changed({ setup: { ...state } });
    };
    show({});
    const lines: string[] = [];
    const results: SetupResult[] = [];
    try {
      const files = await bringIgnoredFiles({ repoTop: worktree.repoRoot, worktree: worktree.path, include: options?.include, link: options?.link, copyMode: options?.copyMode });
      show({ copied: files.copied, linked: files.linked });
      if (files.copied > 0 || files.linked.length > 0 || files.skipped.length > 0) {
        const said = [
          `Copied ${files.copied} ignored file${files.copied === 1 ? '' : 's'} from the main working tree${files.cloneFellBack ? ' (plain copies: this file system cannot clone)' : ''}.`,
          ...(files.linked.length ? [`Linked from the main working tree (shared, not copied): ${files.linked.join(', ')}.`] : []),
          ...files.skipped.map(skip => `Left out: ${skip}.`),
        ];
        lines.push(...said);
        emit({ type: 'setup_output', text: said.join('\n') + '\n' });
      }
      for (const command of commands) {
        if (this.deps.signal.aborted) return;
        show({ command, exitCode: undefined });
        emit({ type: 'setup_start', command });
        const result = await runSetupCommand({
          command, cwd: worktree.path, env: this.env, timeoutMs: options?.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS, signal: this.deps.signal,
          onOutput: text => emit({ type: 'setup_output', text }),
          onProcessGroup: pgid => this.groups.add(pgid), sandbox: this.deps.sandbox,
        });
        results.push(result);
        emit({ type: 'setup_end', command, exitCode: result.exitCode, timedOut: result.timedOut, durationMs: result.durationMs });
        if (result.cancelled) return;
        if (result.exitCode !== 0 || result.timedOut) {
          this.failure = failureText(result);
          show({ state: 'failed', exitCode: result.exitCode });
          this.deps.failed(this.failure);
          return;
        }
        show({ exitCode: 0 });
      }
      // What preparation put in the worktree is not the fork's work: it becomes part of its base.
      const base = await settleSetupBase(worktree, this.deps.summary.name);
      if (base !== worktree.base) this.deps.changed({ worktree: { ...worktree, base } });
      show({ state: 'done' });
    } catch (error) {
      this.failure = `Preparing the worktree failed: ${error instanceof Error ? error.message : String(error)}`;
      show({ state: 'failed' });
      this.deps.failed(this.failure);
      return;
    } finally {
      if (!this.deps.signal.aborted || this.failure) this.reminder = reminderText(lines, results, this.failure);
    }
  }
}

/** Anything to copy, link or run: without, a worktree fork starts exactly as before (no reminder, no new base). */
function hasWork(worktree: ForkWorktree, options: WorktreeOptions | undefined): boolean {
  return (options?.setup?.length ?? 0) > 0 || (options?.include?.length ?? 0) > 0 || (options?.link?.length ?? 0) > 0 ||
    existsSync(path.join(worktree.repoRoot, WORKTREE_INCLUDE_FILE));
}

function durationText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function outcomeText(result: SetupResult): string {
  if (result.timedOut) return `timed out after ${durationText(result.durationMs)} and was killed`;
  if (result.exitCode === null) return `was killed by ${result.signal ?? 'a signal'} after ${durationText(result.durationMs)}`;
  return `exited with code ${result.exitCode} after ${durationText(result.durationMs)}`;
}

function lastLines(text: string): string {
  return text.replace(/\s+$/, '').split('\n').slice(-TAIL_LINES).join('\n');
}

function failureText(result: SetupResult): string {
  const tail = lastLines(result.tail);
  return `Worktree setup \`${result.command}\` ${outcomeText(result)}${tail ? `:\n${tail}` : ' (no output).'}`;
}

function reminderText(lines: string[], results: SetupResult[], failure?: string): string {
  const body = [...lines];
  for (const result of results) {
    // The command's own output must not be able to close the reminder early.
    const tail = lastLines(result.tail).replaceAll('</system-reminder>', '</system_reminder>');
    body.push(`Setup command \`${result.command}\` ${outcomeText(result)}.`, ...(tail ? ['Its last output:', tail] : []));
  }
  if (results.length === 0 && body.length === 0) body.push('No ignored files matched the include list; no setup commands.');
  if (failure && results.every(r => r.exitCode === 0 && !r.timedOut)) body.push(failure);
  return `<system-reminder>\n<${SETUP_TAG}>\nYour worktree was prepared before your first tool call.\n${body.join('\n')}\n</${SETUP_TAG}>\n</system-reminder>`;
}
