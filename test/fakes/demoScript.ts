// A tiny deterministic "model" for the demo and e2e runs: asked to list files and/or read a file, it calls
// list_files then read_file and answers in markdown quoting what they returned; anything else gets a short
// friendly echo. It decides from the conversation alone, so forks and revived sessions behave the same.
import { isPureReminderText } from '../../src/common/transcript';
import type { Responder, ScriptedTurn } from './anthropicServer';

interface Step { name: 'list_files' | 'read_file'; input: Record<string, string> }
interface Block { type: string; text?: string; id?: string; name?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }
interface Msg { role: string; content: string | Block[] }
interface Outcome { step: Step; text: string; isError: boolean }

const READ_PATTERN = /\bread\s+(?:the\s+)?(?:file\s+)?[`"']?([\w./-]*\w)[`"']?/i;

export function demoResponder(): Responder {
  return req => demoTurn(req.body as { messages: Msg[]; tools?: { name: string }[] });
}

function blocksOf(message: Msg): Block[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The user's words in a message: text blocks that are not pure system reminders. */
function promptText(message: Msg): string {
  if (message.role !== 'user') return '';
  return blocksOf(message)
    .filter(b => b.type === 'text' && typeof b.text === 'string' && !isPureReminderText(b.text))
    .map(b => (b.text as string).trim())
    .join('\n')
    .trim();
}

function directiveOf(prompt: string): string {
  const directive = /\bDIRECTIVE:\s*([\s\S]*)$/.exec(prompt);
  return directive ? directive[1].trim() : prompt;
}

export function planFor(prompt: string): Step[] {
  const steps: Step[] = [];
  if (/\blist\b/i.test(prompt)) steps.push({ name: 'list_files', input: { pattern: '**/*' } });
  const read = READ_PATTERN.exec(prompt);
  if (read) steps.push({ name: 'read_file', input: { path: read[1] } });
  return steps;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(b => (typeof b?.text === 'string' ? b.text : '')).join('\n');
  return '';
}

/** Tool calls made since the prompt, with their results where they have come back. */
function outcomesSince(messages: Msg[], from: number): Outcome[] {
  const calls = new Map<string, Step>();
  const outcomes: Outcome[] = [];
  for (const message of messages.slice(from + 1)) {
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use' && block.id && (block.name === 'list_files' || block.name === 'read_file')) {
        calls.set(block.id, { name: block.name, input: {} });
      } else if (block.type === 'tool_result' && block.tool_use_id && calls.has(block.tool_use_id)) {
        outcomes.push({ step: calls.get(block.tool_use_id) as Step, text: resultText(block.content), isError: block.is_error === true });
      }
    }
  }
  return outcomes;
}

function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

export function demoTurn(body: { messages: Msg[]; tools?: { name: string }[] }): ScriptedTurn {
  const messages = body.messages;
  const tools = new Set((body.tools ?? []).map(t => t.name));
  let promptAt = -1;
  for (let i = messages.length - 1; i >= 0 && promptAt < 0; i--) if (promptText(messages[i]) !== '') promptAt = i;
  // A fork's prompt is its boilerplate ("Re-read files …") ending in the directive: only the directive is the ask.
  const prompt = directiveOf(promptAt >= 0 ? promptText(messages[promptAt]) : '');
  const plan = planFor(prompt);
  const outcomes = outcomesSince(messages, promptAt);
  const next = plan.find(step => !outcomes.some(o => o.step.name === step.name));
  if (next) {
    if (!tools.has(next.name)) {
      return say(`I would use the \`${next.name}\` tool for that, but it is not available here, so I can only answer in text.\n\nYou asked: “${prompt}”`);
    }
    const why = next.name === 'list_files' ? 'Let me list the files in the workspace first.' : `Now let me read \`${next.input.path}\`.`;
    return { content: [{ type: 'text', text: why }, { type: 'tool_use', name: next.name, input: next.input }], stop_reason: 'tool_use' };
  }
  if (plan.length > 0) return say(finalAnswer(plan, outcomes));
  if (!prompt) return say('Hello! I am the demo model. What would you like me to do?');
  return say(`Hello! You said: “${prompt}”\n\nI am the demo model: ask me to *list* the files or to *read* a file (for example “read README.md”) and I will use the tools.`);
}

function finalAnswer(plan: Step[], outcomes: Outcome[]): string {
  const sections = ['Here is what I found:', ''];
  for (const step of plan) {
    const outcome = outcomes.find(o => o.step.name === step.name);
    if (!outcome) continue;
    if (outcome.isError) {
      sections.push(`- \`${step.name}\` failed: ${outcome.text.split('\n')[0]}`);
    } else if (step.name === 'list_files') {
      const files = outcome.text.split('\n').map(l => l.trim()).filter(l => l !== '' && !l.startsWith('['));
      const shown = files.slice(0, 5).map(f => `\`${f}\``).join(', ');
      sections.push(`- The workspace has **${files.length}** file${files.length === 1 ? '' : 's'}${shown ? `, including ${shown}` : ''}.`);
    } else {
      // read_file numbers lines like `cat -n`; the quote drops the numbers.
      const lines = outcome.text.split('\n').filter(l => !l.startsWith('[')).slice(0, 3).map(l => l.replace(/^\s*\d+\t/, ''));
      sections.push(`- \`${step.input.path}\` begins with:\n\n${lines.map(l => `  > ${l}`).join('\n')}`);
    }
  }
  return sections.join('\n');
}
