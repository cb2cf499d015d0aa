// "The current chat session" of the panel and the palette: the session of the most recent @fork
// response. The chat participant reports each response's metadata here; the choice survives a window
// reload (VS Code restores the chat, but our participant is not called until the next request).
import * as vscode from 'vscode';
import { isChatSessionMetadata } from '../chat/sessionMapping';

const KEY = 'forkAgents.currentChatSession';

export class CurrentChatSession implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string>();
  /** Fires after every @fork response (the session's transcript changed even when the id did not). */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly memento: vscode.Memento) {}

  get sessionId(): string | undefined {
    return this.memento.get<string>(KEY);
  }

  /** Called with a ChatResult's metadata; anything without a session id is ignored. */
  noteResult(metadata: unknown): void {
    if (!isChatSessionMetadata(metadata)) return;
    void this.memento.update(KEY, metadata.sessionId);
    this.emitter.fire(metadata.sessionId);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
