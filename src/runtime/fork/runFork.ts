// One run of a fork's agent loop (docs/design.md §4.6): its policy and approvals, its workspace (worktree
// preparation, environment, processes), the sibling stagger, the loop itself, and the workspace's end.
// forkEnd.ts decides what the outcome means for the fork's state.
import type { AgentEvent } from '../../common/agentEvents';
import type { ForkState, ForkSummary } from '../../common/forks';
import type { SessionHeader } from '../../common/transcript';
import type { ApprovalRouter } from '../approvals';
import { runLoop } from '../agent/loop';
import { explainFirstRequest } from '../cache/sessionCache';
import type { ApprovalRequest, LoopOutcome } from '../agent/loop';
import { mcpToolsOf } from '../mcp/mcpTools';
import { createAnthropicClient } from '../model/lazyClient';
import { applyPolicy, launchPolicy } from '../policy';
import type { Session } from '../session/session';
import type { SessionStore } from '../session/sessionStore';
import { ALL_TOOLS } from '../tools/registry';
import type { Tool } from '../tools/types';
import type { ModelAccess } from './forkContracts';
import { forkRequestCap } from './forkContracts';
import type { PortBlocks } from './workspace/forkPorts';
import type { ForkRun } from './trackedFork';
import { workspaceForRun } from './workspace/workspaceForRun';
import type { PrefixWriters } from './stagger';
import { StaggerGate } from './stagger';
import { refusingSubagentHost } from './subagentHost';
import { sandboxForRun, SANDBOXED_TOOLS } from '../sandbox/sandboxForRun';
import { runVerify } from './tournament/verify';
import { checkpointTurn, toolsAfter } from '../checkpoint/codeAt';
import type { VerifyResult } from '../../common/tournament';

export interface RunForkDeps {
  store: SessionStore;
  ports: PortBlocks;
  prefixWriters: PrefixWriters;
  approvals: ApprovalRouter;
  controller: AbortController;
  emit(event: AgentEvent): void;
  setState(state: ForkState): void;
  /** The summary changed: tell the clients. */
  changed(): void;
  /** Why no further request may go out (a budget), if none may. */
  mayRequest(): string | undefined;
  /** A tournament attempt's verify command: run in its workspace when the loop ends with a report. */
  verifyCommand?: string;
}

const UNFINISHED: readonly LoopOutcome['stopReason'][] = ['cancelled', 'budget', 'error', 'max_turns'];

/** Runs the loop once; a failed worktree preparation is reported as `setupFailure`. */
export async function runFork(run: ForkRun, session: Session, access: ModelAccess, deps: RunForkDeps): Promise<{ outcome: LoopOutcome; setupFailure?: string; verify?: VerifyResult }> {
  const { controller } = deps;
  // The files the run's tools wrote: recorded in its end checkpoint even when ignored (checkpoint/codeAt.ts).
  const touched = new Set<string>();
  const emit = (event: AgentEvent) => {
    if (event.type === 'tool_result') for (const file of event.files) touched.add(file);
    deps.emit(event);
  };
  const signal = controller.signal;
  const { approvalMode, approve } = applyPolicy(launchPolicy(access), async ({ callId, tool, input, description, category }: ApprovalRequest) => {
    deps.setState('waiting-for-approval');
    try {
      return await deps.approvals.ask({
        sessionId: run.id, turnId: run.id, callId, toolName: tool.definition.name,
        category, description: `${run.summary.name}: ${description}`, input,
      }, signal);
    } finally {
      if (!signal.aborted) deps.setState('running');
    }
  });
  const sandbox = await sandboxForRun(run, session, access, deps.store.storeDir);
  run.summary.sandbox = sandbox.state;
  deps.changed();
  const workspace = workspaceForRun(run, session, {
    store: deps.store, ports: deps.ports, policy: launchPolicy(access), options: access.worktree, emit, controller, changed: deps.changed,
    sandbox: sandbox.commands,
  });
  await workspace.begin();
  // Each run of a fork is a turn of its own transcript, checkpointed in the fork's folder like a chat's
  // turn: at its start (once the worktree is prepared: what preparation wrote is the fork's starting
  // code) and at its end, so rewind and Fork from here work on a fork's messages too.
  const startEntryId = session.lastEntry()?.id ?? null;
  const started = workspace.prepared().then(() => checkpointTurn(deps.store.storeDir, session, 'turn-start', [], startEntryId));
  const stagger = new StaggerGate(deps.prefixWriters, session, signal);
  const toolContext = {
    root: session.header.root, ripgrepPath: access.ripgrepPath, subagents: refusingSubagentHost,
    env: workspace.env, onProcessGroup: (pgid: number) => workspace.groups.add(pgid), sandbox: sandbox.commands, fileRules: sandbox.fileRules,
  };
  const outcome = await runLoop({
    session,
    model: createAnthropicClient(access),
    tools: toolsAfter(started, workspace.gatedTools(toolsFor(run.summary.kind, session.header, access.restricted === true))),
    toolContext,
    sandboxedTools: sandbox.commands ? SANDBOXED_TOOLS : undefined,
    beforeRequest: () => workspace.beforeRequest(),
    approvalMode,
    compaction: access.compaction,
    approve,
    signal,
    emit,
    maxRequests: Math.max(0, forkRequestCap() - run.summary.modelTurns),
    mayRequest: deps.mayRequest,
    beforeSend: stagger.beforeSend,
    onResponseStart: stagger.onResponseStart,
    explainFirstRequest: record => explainFirstRequest(session, record, id => deps.store.loaded(id)),
  });
  stagger.release();
  await started;
  await checkpointTurn(deps.store.storeDir, session, 'turn-end', [...touched]);
  // Before the workspace ends: the command runs with the fork's environment, and what it leaves running ends with it.
  const verify = deps.verifyCommand && !UNFINISHED.includes(outcome.stopReason) && !workspace.failureReason && !signal.aborted
    ? await runVerify(deps.verifyCommand, { approvalMode, approve, toolContext: { ...toolContext, signal } })
    : undefined;
  run.controller = undefined;
  // A failed preparation is recorded too: the reason is in the transcript, not only in the summary.
  if (!signal.aborted || workspace.failureReason) await workspace.settle();
  // Servers and watchers its commands left running end with the run (stopped, failed or finished).
  const ended = await workspace.end();
  await sandbox.close();
  if (ended > 0) run.summary.endedProcesses = ended;
  return { outcome, setupFailure: workspace.failureReason, verify };
}

function toolsFor(kind: ForkSummary['kind'], header: SessionHeader, restricted: boolean): ReadonlyMap<string, Tool> {
  // Every child keeps the full tool definitions (cache parity); explore agents may only run read tools.
  const all = [...ALL_TOOLS, ...mcpToolsOf(header, { restricted })];
  const allowed = kind === 'explore' ? all.filter(tool => tool.category === 'read') : all;
  return new Map(allowed.map(tool => [tool.definition.name, tool]));
}
