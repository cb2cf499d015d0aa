// The Forks webview view: serves the HTML shell, validates what the webview sends, answers its
// requests, and sends the snapshot on every `panel/ready` — after each (re)load, including when the view
// comes back after being hidden (no retainContextWhenHidden: the host keeps the state, not the webview).
import * as vscode from 'vscode';
import type { Isolation } from '../../common/forks';
import type { RequestDescriptor } from '../../common/protocol/descriptor';
import { forkReveal, notificationMessage, panelReady, panelSnapshot, parseToHost, pickerChanged } from '../../common/protocol/webview';
import type { PanelSnapshot, WireMessage } from '../../common/protocol/webview';
import { createNonce, panelHtml } from './html';

export const FORKS_VIEW_ID = 'forkAgents.forksView';

type AnyHandler = (params: unknown) => Promise<unknown>;

/** Pairs a request descriptor with its handler, typed by the descriptor. */
export function handler<P, R>(descriptor: RequestDescriptor<P, R>, fn: (params: P) => Promise<R>): [string, AnyHandler] {
  return [descriptor.method, params => fn(params as P)];
}

export interface ForksViewDeps {
  extensionUri: vscode.Uri;
  snapshot(): PanelSnapshot;
  handlers: Map<string, AnyHandler>;
  /** The view stopped being visible (approvals waiting there need another way to reach the user). */
  onHidden(): void;
  log: vscode.LogOutputChannel;
}

export class ForksViewProvider implements vscode.WebviewViewProvider {
  private view?: vscode.WebviewView;
  private ready = false;
  private pendingReveal?: string;
  /** The turn picker's value (null while it is invalid) and isolation, for Fork from here in the context menu. */
  picker: { forkTurns?: string | null; isolation?: Isolation } = {};

  constructor(private readonly deps: ForksViewDeps) {}

  /** Visible and listening: what is posted now is seen. */
  get visible(): boolean {
    return this.ready && this.view?.visible === true;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.deps.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = panelHtml({
      cspSource: view.webview.cspSource,
      nonce: createNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'panel.css')).toString(),
    });
    const subscriptions = [
      view.webview.onDidReceiveMessage(message => this.receive(message)),
      view.onDidChangeVisibility(() => {
        if (view.visible) return;
        // Without retainContextWhenHidden the page is gone; it says ready again when shown.
        this.ready = false;
        this.deps.onHidden();
      }),
    ];
    view.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
        this.deps.onHidden();
      }
    });
  }

  post(message: WireMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
  }

  /** Shows the view, then expands the fork's row once the page is ready. */
  async reveal(forkId?: string): Promise<void> {
    if (forkId) this.pendingReveal = forkId;
    await vscode.commands.executeCommand(`${FORKS_VIEW_ID}.focus`);
    this.flushReveal();
  }

  /**
   * Opens the fork's row without moving the focus, showing the view if it was resolved but hidden. For a
   * fork started from the view's own menu: it is listed only once its worktree is made, seconds later on a
   * busy machine, and by then the user may be typing in the palette or an editor.
   */
  showRow(forkId: string): void {
    this.pendingReveal = forkId;
    if (this.visible) this.flushReveal();
    // preserveFocus; the page says ready once shown, which posts the reveal.
    else this.view?.show(true);
  }

  /** Opens the fork's row if the view is on screen, without taking the focus (a fork started elsewhere). */
  highlight(forkId: string): void {
    if (this.visible) this.post(notificationMessage(forkReveal, { forkId }));
  }

  private flushReveal(): void {
    if (!this.pendingReveal || !this.visible) return;
    this.post(notificationMessage(forkReveal, { forkId: this.pendingReveal }));
    this.pendingReveal = undefined;
  }

  private receive(raw: unknown): void {
    const parsed = parseToHost(raw);
    if (!parsed.ok) {
      this.deps.log.warn(`Forks panel sent an invalid message: ${parsed.error}`);
      if (parsed.id !== undefined) this.respond({ kind: 'response', id: parsed.id, error: parsed.error });
      return;
    }
    const { message } = parsed;
    if (message.kind === 'notification') {
      if (message.method === panelReady.method) {
        this.ready = true;
        this.post(notificationMessage(panelSnapshot, this.deps.snapshot()));
        this.flushReveal();
      } else if (message.method === pickerChanged.method) {
        this.picker = message.params as { forkTurns: string | null; isolation: Isolation };
      }
      return;
    }
    const handle = this.deps.handlers.get(message.method);
    if (!handle) {
      this.respond({ kind: 'response', id: message.id, error: `no handler for ${message.method}` });
      return;
    }
    handle(message.params).then(
      result => this.respond({ kind: 'response', id: message.id, result: result ?? {} }),
      (error: unknown) => this.respond({ kind: 'response', id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** Answers go out even before `ready` (a request implies a live page). */
  private respond(message: WireMessage): void {
    void this.view?.webview.postMessage(message);
  }
}
