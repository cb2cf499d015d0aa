// The current chat's transcript: prompts, answers (host-rendered markdown), tool calls
// folded. Every message carries data-vscode-context, so right-click › Fork from here (a webview/context
// menu item) receives its entry id; a focusable message also has its own Fork from here button. The
// message that ends a turn lists the files the turn changed, with "Diff since here".
import type { TurnFile } from '../src/common/protocol/checkpoints';
import type { MessageView, SessionView, ToolCallView } from '../src/common/protocol/webview';
import { button, h, icon, setTrustedHtml } from './dom';

const ROLE_LABEL = { user: 'You', assistant: '@fork', note: 'Note' } as const;
const ROLE_ICON = { user: 'account', assistant: 'repo-forked', note: 'info' } as const;

export class TranscriptView {
  readonly el = h('ol', { class: 'messages', 'aria-label': 'Conversation' });
  readonly empty = h('p', { class: 'empty' }, 'No conversation yet: ask @fork something in the Chat view and it shows here.');
  private session?: SessionView;

  constructor(private readonly forkHere: (message: MessageView) => void, private readonly diffSince: (message: MessageView) => void) {}

  set(session: SessionView | undefined): void {
    this.session = session;
    this.el.replaceChildren(...(session?.messages ?? []).map(message => this.message(message)));
    this.empty.hidden = (session?.messages.length ?? 0) > 0;
  }

  /** The first words of the message that shows this entry. */
  snippet(entryId: string | undefined): string | undefined {
    if (!entryId || !this.session) return undefined;
    const message = this.session.messages.find(m => m.entryIds.includes(entryId));
    if (!message) return undefined;
    const text = (message.text ?? htmlText(message.html) ?? '').replace(/\s+/g, ' ').trim();
    return text.length > 40 ? `${text.slice(0, 39)}…` : text || undefined;
  }

  private message(message: MessageView): HTMLElement {
    const forkable = message.role !== 'note';
    const li = h('li', { class: `message ${message.role}`, tabindex: '0', 'aria-label': `${ROLE_LABEL[message.role]}: ${this.snippetOf(message)}` });
    if (forkable) {
      li.dataset.vscodeContext = JSON.stringify({ webviewSection: 'message', messageId: message.id, preventDefaultContextMenuItems: true });
    }
    const head = h('div', { class: 'message-head' }, icon(ROLE_ICON[message.role]), h('span', { class: 'message-role' }, ROLE_LABEL[message.role]));
    if (forkable) head.append(button('Fork from here', { kind: 'icon', icon: 'repo-forked', title: 'Fork from here', onClick: () => this.forkHere(message) }));
    li.append(head);
    if (message.html) {
      const body = h('div', { class: 'message-body markdown' });
      setTrustedHtml(body, message.html);
      li.append(body);
    } else if (message.text) {
      li.append(h('div', { class: 'message-body text' }, message.text));
    }
    if (message.tools.length > 0) li.append(h('div', { class: 'tools' }, ...message.tools.map(tool)));
    if (message.turnFiles && message.turnFiles.length > 0) li.append(this.turnFiles(message, message.turnFiles));
    return li;
  }

  private turnFiles(message: MessageView, files: readonly TurnFile[]): HTMLElement {
    const count = files.length === 1 ? '1 file changed' : `${files.length} files changed`;
    return h(
      'div',
      { class: 'turn-files', 'aria-label': `This turn: ${count}` },
      h('div', { class: 'turn-files-head' },
        icon('diff'), h('span', { class: 'turn-files-count' }, count),
        button('Diff since here', { kind: 'toolbar', icon: 'diff-multiple', title: 'Diff since here: this turn\'s start against the files now', onClick: () => this.diffSince(message) })),
      h('ul', { class: 'turn-file-list' }, ...files.map(turnFile)),
    );
  }

  private snippetOf(message: MessageView): string {
    return this.snippet(message.entryIds[0]) ?? (message.tools.length > 0 ? `${message.tools.length} tool call(s)` : '');
  }
}

const STATUS_LETTER: Record<TurnFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', 'type-changed': 'T' };

function turnFile(file: TurnFile): HTMLElement {
  const name = file.oldPath ? `${file.oldPath} → ${file.path}` : file.path;
  const lines = file.binary ? 'binary' : file.added === undefined ? '' : `+${file.added} −${file.removed ?? 0}`;
  return h(
    'li',
    { class: `turn-file ${file.status}`, title: `${file.status}: ${name}` },
    h('span', { class: 'turn-file-status', 'aria-label': file.status }, STATUS_LETTER[file.status]),
    h('span', { class: 'turn-file-path' }, name),
    lines ? h('span', { class: 'turn-file-lines' }, lines) : undefined,
  );
}

function tool(call: ToolCallView): HTMLElement {
  return h(
    'details',
    { class: `tool${call.isError ? ' error' : ''}` },
    h('summary', {}, icon(call.isError ? 'error' : 'tools'), h('span', { class: 'tool-name' }, call.name), h('span', { class: 'tool-input' }, call.input)),
    h('pre', { class: 'tool-result' }, call.result ?? '(no result)'),
  );
}

/** Text of host-rendered HTML, parsed inertly (a template document runs nothing and loads nothing). */
function htmlText(html: string | undefined): string | undefined {
  if (!html) return undefined;
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content.textContent ?? undefined;
}
