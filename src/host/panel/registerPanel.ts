// Wires the Forks panel: the host-side model fed by the runtime's fork notifications, the
// webview view, its request handlers, fork approvals, read-only documents and the Fork commands.
import * as vscode from 'vscode';
import { isTerminal } from '../../common/forks';
import { forkTurnsToString } from '../../common/forkTurns';
import { forkCancel, forkEvent, forkHistory, forkList, forkSend, forkState } from '../../common/protocol/forks';
import { mcpState, sessionCache, sessionList, sessionTranscript, storeInfo } from '../../common/protocol/runtime';
import type { TranscriptResult } from '../../common/protocol/runtime';
import type { SessionView } from '../../common/protocol/webview';
import type { McpServerStatus } from '../../common/protocol/mcp';
import { cacheEffectText, noPriceText, usdText } from '../../common/pricing';

/** "This chat: $0.012 (the cache saved $0.030)", its own requests only; forks show in their rows. */
function chatCostText(t: TranscriptResult): string {
  if (!t.costs) return `This chat: ${noPriceText(t.header.settings.model, 'editor')}`;
  return `This chat: ${usdText(t.costs.total.usd)} (${cacheEffectText(t.costs.total)})`;
}
import {
  approvalAnswer, openLink, panelDiffSince, panelForkAction, panelForkCancel, panelForkContinue, panelForkFromMessage, panelForkSend, panelForkStart,
  panelTournamentApply, panelTournamentCompare, panelTournamentDiff,
} from '../../common/protocol/webview';
import { tournamentApply, tournamentCompare, tournamentDiff } from '../../common/protocol/forks';
import { registerPanelCommands } from '../commands/forkPanelCommands';
import { registerChatForkCommands } from '../commands/chatForkCommands';
import type { ShowReport } from '../forks/reportDocs';
import { forkFromMessage } from '../commands/forkFromMessage';
import type { ForkApprovalRoute } from '../approvals';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';
import { availableModels } from '../lm/models';
import { CurrentChatSession } from './currentSession';
import { openLinkAfterAsking, runForkAction } from './forkActions';
import { ForkStarter, defaultIsolation } from './forkStarter';
import { FORKS_VIEW_ID, ForksViewProvider, handler } from './forksView';
import { renderReport, renderUntrustedMarkdown } from './markdown';
import { PanelApprovals } from './panelApprovals';
import { PanelModel } from './panelModel';
import { registerReadOnlyDocs } from './readOnlyDocs';
import { attachTurnFiles, buildSessionView } from './sessionView';
import { sessionTurnFiles } from '../../common/protocol/checkpoints';
import { diffSinceHere, registerCheckpointContent } from '../commands/diffSinceHere';

/** "the turn “first words of its prompt…”": what a diff since that turn's start is titled with. */
function turnLabel(view: SessionView, messageId: string): string {
  const at = view.messages.findIndex(m => m.id === messageId);
  const prompt = view.messages.slice(0, at + 1).reverse().find(m => m.role === 'user');
  const words = (prompt?.text ?? '').replace(/\s+/g, ' ').trim();
  return words ? `the turn “${words.length > 40 ? `${words.slice(0, 39)}…` : words}”` : 'this turn';
}

/** Review / apply / keep / discard: the runtime's fork/review|apply|keep|discard behind the worktree commands. */
const WORKTREE_ACTIONS = true;
/** How many of the latest forks get their earlier output loaded when the window opens. */
const HISTORY_FORKS = 20;

export interface ForksPanel {
  /** Where fork approvals go while the panel is visible. */
  approvals: ForkApprovalRoute;
  /** The chat participant reports each response here. */
  chatSession: CurrentChatSession;
  /** Reads the current chat's transcript again (after a rewind, which sends no entry events). */
  refreshSession(): void;
}

export function registerForksPanel(context: vscode.ExtensionContext, runtime: RuntimeApi, settings: HostSettings, log: vscode.LogOutputChannel, showReport: ShowReport): ForksPanel {
  const chatSession = new CurrentChatSession(context.workspaceState);
  let provider: ForksViewProvider | undefined;
  const model = new PanelModel({ post: message => provider?.post(message), renderMarkdown: renderReport });
  const approvals = new PanelApprovals(model, () => provider?.visible === true);
  const starter = new ForkStarter(runtime, chatSession, model);
  const openDoc = registerReadOnlyDocs(context, runtime);
  const known = (forkId: string) => {
    const fork = model.fork(forkId);
    if (!fork) throw new Error(`No fork ${forkId} in this window.`);
    return fork;
  };
  const deps = { runtime, settings, starter, model, view: () => provider! };
  provider = new ForksViewProvider({
    extensionUri: context.extensionUri,
    snapshot: () => {
      refreshModels();
      return model.snapshot({ defaults: { forkTurns: forkTurnsToString(settings.defaultTurns()), isolation: defaultIsolation() }, worktreeActions: WORKTREE_ACTIONS });
    },
    onHidden: () => approvals.viewHidden(),
    log,
    handlers: new Map([
      handler(panelForkStart, async params => ({ forkId: (await starter.start(params)).id })),
      // Webview content is untrusted: only ids go through; the runtime checks they name the group's attempts.
      handler(panelTournamentCompare, params => runtime.request(tournamentCompare, { groupId: String(params.groupId) })),
      handler(panelTournamentDiff, params => runtime.request(tournamentDiff, { groupId: String(params.groupId), a: String(params.a), b: String(params.b) })),
      handler(panelTournamentApply, async params => {
        const choice = params.forkId !== undefined
          ? { forkId: String(params.forkId) }
          : { hunks: (params.hunks ?? []).map(c => ({ attempt: String(c.attempt), hunks: c.hunks.map(Number) })) };
        const result = await runtime.request(tournamentApply, { groupId: String(params.groupId), ...choice, discardRest: params.discardRest === true });
        // One attempt whole: a conflict with the main tree is an error. Chosen hunks: the view marks what conflicts.
        if (params.forkId !== undefined && result.conflicts.length > 0) throw new Error(result.message);
        return { message: result.message, applied: result.applied, hunkConflicts: result.hunkConflicts, conflicts: result.conflicts };
      }),
      handler(panelForkFromMessage, async params => ({ forkId: (await forkFromMessage(deps, params.messageId, params.forkTurns, provider?.picker.isolation))?.id })),
      handler(panelForkCancel, params => runtime.request(forkCancel, { forkId: params.forkId })),
      // The new state arrives as fork/state; the answer could be older than it by the time it lands.
      handler(panelForkSend, async params => {
        await runtime.request(forkSend, params);
        return {};
      }),
      handler(panelForkContinue, async params => {
        await runtime.request(forkSend, { forkId: params.forkId, budget: params.budget });
        return {};
      }),
      handler(approvalAnswer, async params => {
        if (!approvals.answer(params.callId, params.approved)) throw new Error('That approval is no longer pending.');
        return {};
      }),
      handler(panelForkAction, async params => {
        await runForkAction(openDoc, known(params.forkId), params.action);
        return {};
      }),
      handler(panelDiffSince, async params => {
        // Only a message id comes from the page: the turn it names is the one this host listed.
        const sessionId = shownSession?.sessionId;
        const startEntryId = sessionId ? turnStarts.get(params.messageId) : undefined;
        if (!sessionId || startEntryId === undefined) throw new Error('That message has no checkpointed turn to diff from.');
        return { files: await diffSinceHere(runtime, sessionId, startEntryId, turnLabel(shownSession!, params.messageId)) };
      }),
      handler(openLink, async params => {
        await openLinkAfterAsking(params.href);
        return {};
      }),
    ]),
  });

  let generation = 0;
  let shownSession: SessionView | undefined;
  let turnStarts = new Map<string, string | null>();
  const refreshSession = async () => {
    const mine = ++generation;
    const sessionId = chatSession.sessionId;
    try {
      const transcript = sessionId ? await runtime.request(sessionTranscript, { sessionId }) : undefined;
      const view = transcript && {
        ...buildSessionView(transcript.header, transcript.entries, renderUntrustedMarkdown),
        costText: chatCostText(transcript),
        cacheSteps: (await runtime.request(sessionCache, { sessionId: transcript.header.id }).catch(() => ({ steps: [] }))).steps,
        model: transcript.header.settings.model,
        ...(transcript.damage?.length ? { damage: transcript.damage } : {}),
      };
      // Safe to drop: without the list (a runtime from before it) the turns show no files; nothing else changes.
      const turns = transcript ? (await runtime.request(sessionTurnFiles, { sessionId: transcript.header.id }).catch(() => ({ turns: [] }))).turns : [];
      const starts = view ? attachTurnFiles(view, turns) : new Map<string, string | null>();
      const servers = transcript?.header.mcpServers?.length ? await mcpStatusOf(transcript.header.id, transcript.header.root) : [];
      if (mine !== generation) return;
      shownSession = view;
      turnStarts = starts;
      model.setSession(view);
      model.setMcpServers(servers);
      // The chat's turn wrote to the store too (not only a fork's end): its size line follows.
      refreshStore();
    } catch (error) {
      log.warn(`Forks panel: could not read the transcript of ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  /** session/list knows each chat's servers and their state now. */
  const mcpStatusOf = async (sessionId: string, root: string): Promise<McpServerStatus[]> =>
    (await runtime.request(sessionList, { root })).sessions.find(s => s.id === sessionId)?.mcpServers ?? [];
  // A new fork's model choice: the Chat view's list, read again when the settings change and whenever the
  // view (re)loads (the runtime may not have been reachable before).
  const refreshModels = () => {
    availableModels(settings, runtime).then(models => model.setModels(models.map(m => ({ id: m.id, name: m.name }))), () => undefined);
  };

  context.subscriptions.push(
    settings.onDidChange(() => refreshModels()),
    runtime.listen(mcpState, ({ server }) => model.updateMcpServer(server)),
    chatSession,
    { dispose: () => model.dispose() },
    { dispose: () => approvals.dispose() },
    vscode.window.registerWebviewViewProvider(FORKS_VIEW_ID, provider),
    registerCheckpointContent(runtime),
    runtime.listen(forkState, ({ fork }) => {
      model.setFork(fork);
      if (isTerminal(fork.state)) {
        approvals.forkEnded(fork.id);
        refreshStore();
      }
    }),
    runtime.listen(forkEvent, ({ forkId, event, seq }) => model.onForkEvent(forkId, event, seq)),
    chatSession.onDidChange(() => void refreshSession()),
  );
  registerPanelCommands(context, deps);
  registerChatForkCommands(context, deps, openDoc, showReport);
  function refreshStore(): void {
    runtime.request(storeInfo, {}).then(({ bytes, sessions, segments }) => model.setStore({ bytes, sessions, segments }), (error: unknown) => {
      // The panel keeps the store size it showed last; the next fork that ends asks again.
      log.warn(`Forks panel: could not read the store's size: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  // Forks that ran before this window opened show what they did so far (the most recent few: output is
  // kept in memory and goes into every snapshot of the view).
  const loadHistory = (forkId: string) => {
    model.beginHistory(forkId);
    runtime.request(forkHistory, { forkId }).then(history => model.endHistory(forkId, history), error => {
      log.warn(`Forks panel: could not read the output of ${forkId}: ${error instanceof Error ? error.message : String(error)}`);
      model.endHistory(forkId);
    });
  };
  runtime.request(forkList, {}).then(({ forks }) => {
    forks.forEach(fork => model.addForkIfNew(fork));
    forks.filter(fork => fork.modelTurns > 0).slice(-HISTORY_FORKS).forEach(fork => loadHistory(fork.id));
  }, (error: unknown) => {
    // Forks that ran before this window stay unlisted until their next fork/state; live ones show anyway.
    log.warn(`Forks panel: could not list the forks: ${error instanceof Error ? error.message : String(error)}`);
  });
  void refreshSession();
  refreshStore();
  refreshModels();
  return { approvals, chatSession, refreshSession: () => void refreshSession() };
}
