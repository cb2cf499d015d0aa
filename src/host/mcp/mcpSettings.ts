// The editor's MCP servers (docs/design.md §6): the user's `fork.mcp.servers` setting (application scope) and
// each workspace folder's `.vscode/mcp.json`. A repository's servers are code a clone can run: each starts
// only once the user trusts it — a prompt showing the exact command line or URL, remembered per workspace
// against the entry as written, so any change asks again — and never in Restricted Mode.
// `${input:id}` values are asked once and kept in SecretStorage.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeEntry, fingerprint, fromJson, readWorkspaceMcp, resolveEntry } from '../../client/mcpConfig';
import type { McpEntry, McpFile, McpInput } from '../../client/mcpConfig';
import type { McpServerConfig } from '../../common/protocol/mcp';

const TRUST_KEY = 'forkAgents.mcpTrust';
const INPUT_SECRET = 'forkAgents.mcpInput.';

export class McpSettings {
  readonly onDidChange: vscode.Event<void>;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Prompts shown this window, so one entry is asked about once until it changes. */
  private readonly asked = new Set<string>();

  constructor(private readonly context: vscode.ExtensionContext, private readonly output: vscode.LogOutputChannel) {
    this.onDidChange = this.changed.event;
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
    context.subscriptions.push(
      this.changed, watcher,
      watcher.onDidChange(() => this.changed.fire()), watcher.onDidCreate(() => this.changed.fire()), watcher.onDidDelete(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration(e => e.affectsConfiguration('fork.mcp') && this.changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()),
    );
  }

  /** The servers the runtime may start now: the user's, plus the repository ones the user trusted. */
  async servers(): Promise<McpServerConfig[]> {
    const config = vscode.workspace.getConfiguration('fork.mcp');
    const trustedNames = new Set(config.get<string[]>('trusted') ?? []);
    const user = fromJson(config.get<unknown>('servers'), 'setting fork.mcp.servers');
    const chosen: { entry: McpEntry; file: McpFile; folder?: string }[] = user.servers.map(entry => ({ entry, file: user }));
    const problems = [...user.problems];
    const untrusted: { entry: McpEntry; folder: string }[] = [];
    if (vscode.workspace.isTrusted) {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        const file = readWorkspaceMcp(folder.uri.fsPath);
        problems.push(...file.problems);
        for (const entry of file.servers) {
          if (chosen.some(c => c.entry.name === entry.name)) continue;
          if (this.trusted(folder.uri.fsPath, entry)) chosen.push({ entry, file, folder: folder.uri.fsPath });
          else untrusted.push({ entry, folder: folder.uri.fsPath });
        }
      }
    }
    for (const problem of problems) this.output.warn(problem);
    for (const each of untrusted) void this.askTrust(each.folder, each.entry);
    const servers: McpServerConfig[] = [];
    for (const { entry, file, folder } of chosen) {
      try {
        servers.push(await resolveEntry(entry, {
          workspaceFolder: folder ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
          env: process.env, inputs: file.inputs, input: (input, id) => this.inputValue(input, id),
        }, trustedNames.has(entry.name)));
      } catch (error) {
        this.output.warn(`MCP server "${entry.name}" left out: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return servers;
  }

  private trustKey(folder: string, entry: McpEntry): string {
    return `${folder}${path.delimiter}${entry.name}`;
  }

  private trusted(folder: string, entry: McpEntry): boolean {
    const trust = this.context.workspaceState.get<Record<string, string>>(TRUST_KEY) ?? {};
    return trust[this.trustKey(folder, entry)] === fingerprint(entry);
  }

  private async askTrust(folder: string, entry: McpEntry): Promise<void> {
    const id = `${this.trustKey(folder, entry)}\n${fingerprint(entry)}`;
    if (this.asked.has(id)) return;
    this.asked.add(id);
    const choice = await vscode.window.showWarningMessage(
      `This repository's .vscode/mcp.json wants to start the MCP server "${entry.name}" for Fork Agents: ${describeEntry(entry)}. Start it? It runs with your permissions.`,
      'Trust and Start', 'Not Now',
    );
    if (choice !== 'Trust and Start') return;
    const trust = { ...(this.context.workspaceState.get<Record<string, string>>(TRUST_KEY) ?? {}), [this.trustKey(folder, entry)]: fingerprint(entry) };
    await this.context.workspaceState.update(TRUST_KEY, trust);
    // Fired before the confirmation: by the time it shows, the runtime is being reconfigured, and a chat
    // request sent after it waits for that. A chat keeps the tools it started with, so say where they appear.
    this.changed.fire();
    void vscode.window.showInformationMessage(`MCP server "${entry.name}" trusted: new @fork chats can use its tools (a chat keeps the tools it started with).`);
  }

  private async inputValue(input: McpInput | undefined, id: string): Promise<string | undefined> {
    const stored = await this.context.secrets.get(INPUT_SECRET + id);
    if (stored !== undefined) return stored;
    const value = await vscode.window.showInputBox({
      title: `MCP input "${id}"`, prompt: input?.description ?? `Value for \${input:${id}}`, password: input?.password === true,
      value: input?.default, ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    await this.context.secrets.store(INPUT_SECRET + id, value);
    return value;
  }
}
