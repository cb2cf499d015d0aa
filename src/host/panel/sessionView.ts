// The current chat's transcript as the panel shows it: prompts, answers, tool calls folded
// under their answer. Each message names the entry a fork "from here" ends at: a prompt its own entry,
// an answer its last entry (its final text, or the tool results that complete its calls). Pure.
import { countRealTurns } from '../../common/forkWindow';
import { requestViewOf } from '../../common/requestView';
import type { TurnChanges } from '../../common/protocol/checkpoints';
import type { MessageView, SessionView, ToolCallView } from '../../common/protocol/webview';
import type { Entry, SessionHeader, ToolResultBlock } from '../../common/transcript';
import { isPureReminderText } from '../../common/transcript';

const MAX_INPUT_CHARS = 200;
const MAX_RESULT_CHARS = 2_000;
const MAX_NOTE_CHARS = 300;

export function buildSessionView(header: Pick<SessionHeader, 'id' | 'title'>, entries: readonly Entry[], renderMarkdown: (text: string) => string): SessionView {
  const messages: MessageView[] = [];
  const texts = new Map<MessageView, string[]>();
  let answer: MessageView | undefined;
  const tools = new Map<string, ToolCallView>();
  for (const entry of entries) {
    switch (entry.kind) {
      case 'prompt': {
        answer = undefined;
        messages.push({ id: entry.id, entryIds: [entry.id], kind: entry.kind, role: 'user', text: userText(entry), tools: [] });
        break;
      }
      case 'response': {
        if (!answer) {
          answer = { id: entry.id, entryIds: [], kind: entry.kind, role: 'assistant', tools: [] };
          messages.push(answer);
          texts.set(answer, []);
        }
        answer.id = entry.id;
        answer.entryIds.push(entry.id);
        for (const block of entry.message.content) {
          if (block.type === 'text' && block.text.trim() !== '') texts.get(answer)!.push(block.text);
          if (block.type === 'tool_use') {
            const call: ToolCallView = { name: block.name, input: cut(inputText(block.input), MAX_INPUT_CHARS) };
            tools.set(block.id, call);
            answer.tools.push(call);
          }
        }
        break;
      }
      case 'tool_results': {
        if (!answer) break;
        answer.id = entry.id;
        answer.entryIds.push(entry.id);
        for (const block of entry.message.content) {
          if (block.type !== 'tool_result') continue;
          const call = tools.get(block.tool_use_id);
          if (call) {
            call.result = cut(resultText(block), MAX_RESULT_CHARS);
            call.isError = block.is_error === true;
          }
        }
        break;
      }
      case 'summary':
        answer = undefined;
        messages.push({ id: entry.id, entryIds: [entry.id], kind: entry.kind, role: 'note', text: 'Earlier conversation, compacted into a summary.', tools: [] });
        break;
      case 'notification':
        messages.push({ id: entry.id, entryIds: [entry.id], kind: entry.kind, role: 'note', text: cut(userText(entry, true), MAX_NOTE_CHARS), tools: [] });
        break;
      default:
        // startup context and reminders are the system's, not the conversation's.
        break;
    }
  }
  for (const [message, parts] of texts) if (parts.length > 0) message.html = renderMarkdown(parts.join('\n\n'));
  return { sessionId: header.id, title: header.title, realTurns: countRealTurns(requestViewOf(entries)), messages };
}

function userText(entry: Entry, keepReminders = false): string {
  return entry.message.content
    .filter(block => block.type === 'text' && (keepReminders || !isPureReminderText(block.text)))
    .map(block => (block.type === 'text' ? block.text.replace(/<\/?system-reminder>/g, '').trim() : ''))
    .filter(text => text !== '')
    .join('\n');
}

function inputText(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    return Object.entries(input as Record<string, unknown>)
      .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ');
  }
  return input === undefined ? '' : JSON.stringify(input);
}

function resultText(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : block.content.map(part => (part.type === 'text' ? part.text : '[image]')).join('\n');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Puts each checkpointed turn's files on the message that shows its last entry; returns, per such
 * message id, the entry its turn started after (what "Diff since here" asks the runtime for).
 */
export function attachTurnFiles(view: SessionView, turns: readonly TurnChanges[]): Map<string, string | null> {
  const starts = new Map<string, string | null>();
  for (const turn of turns) {
    if (turn.endEntryId === null) continue;
    const message = view.messages.find(m => m.entryIds.includes(turn.endEntryId!));
    if (!message) continue;
    message.turnFiles = turn.files;
    starts.set(message.id, turn.startEntryId);
  }
  return starts;
}
