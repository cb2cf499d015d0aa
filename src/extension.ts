// Extension entry (docs/design.md §2): wiring only — each feature registers the disposables it creates.
import * as vscode from 'vscode';
import { registerApprovals } from './host/approvals';
import { ChatApprovals, registerChatApprovalCommand } from './host/chat/chatApprovals';
import { registerChatParticipant } from './host/chat/participant';
import { ForkEndsShown } from './host/forks/forkEndsShown';
import { registerForkFromHere } from './host/commands/forkFromHere';
import { registerRewindHere } from './host/commands/rewindHere';
import { registerForkNotifier } from './host/forks/forkNotifier';
import { registerFirstForkContext } from './host/forks/firstForkContext';
import { registerReportDocs } from './host/forks/reportDocs';
import { registerShowRuntimeLog } from './host/commands/showRuntimeLog';
import { registerDeleteSession } from './host/commands/deleteSession';
import { registerLanguageModel } from './host/lm/provider';
import { registerForksPanel } from './host/panel/registerPanel';
import { createRuntimeConnection, resolveStoreDir } from './host/runtimeClient';
import type { RuntimeApi } from './host/runtimeApi';
import { ApiKeyStore, registerKeyCommands } from './host/secrets';
import { HostSettings } from './host/settings';
import { McpSettings } from './host/mcp/mcpSettings';
import { registerWorktrees } from './host/worktrees/registerWorktrees';

/** What activate() returns: extension-host tests read transcripts through `runtime`. */
export interface ForkAgentsApi { storeDir: string; runtime: RuntimeApi }

export async function activate(context: vscode.ExtensionContext): Promise<ForkAgentsApi> {
  const output = vscode.window.createOutputChannel('Fork Agents', { log: true });
  context.subscriptions.push(output);
  const keys = new ApiKeyStore(context);
  const settings = new HostSettings(context, keys);
  const storeDir = resolveStoreDir(context);
  registerKeyCommands(context, keys);
  registerShowRuntimeLog(context, storeDir);
  const runtime = createRuntimeConnection(context, settings, output, storeDir, new McpSettings(context, output));
  registerForkFromHere(context, runtime, settings);
  const endsShown = new ForkEndsShown();
  const showReport = registerReportDocs(context, runtime);
  registerForkNotifier(context, runtime, endsShown, showReport, output);
  registerFirstForkContext(context, runtime);
  registerDeleteSession(context, runtime);
  registerWorktrees(context, runtime, output, storeDir);
  const panel = registerForksPanel(context, runtime, settings, output, showReport);
  const chatApprovals = new ChatApprovals();
  registerChatApprovalCommand(context, chatApprovals);
  registerApprovals(context, runtime, [panel.approvals, chatApprovals]);
  registerRewindHere(context, runtime, { currentSession: () => panel.chatSession.sessionId, rewound: () => panel.refreshSession() });
  registerChatParticipant(context, { runtime, settings, endsShown, approvals: chatApprovals, current: panel.chatSession });
  await registerLanguageModel(context, settings, runtime, output);
  return { storeDir, runtime };
}
