// The demo model plus scripted forks, for the Forks panel's UI checks. Chat turns go to the
// demo model; a fork acts on words of its directive, so a test picks the behaviour it needs:
// "write <file>" asks to write a file (an approval in ask mode), "xss" reports hostile HTML, "slow" keeps
// listing files for a long while (something to stop), anything else lists the files and streams a report.
import type { ReceivedRequest, Responder, ScriptedTurn } from './anthropicServer';
import { demoResponder } from './demoScript';

interface Block { type: string; text?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }
interface Msg { role: string; content: string | Block[] }

const BOILERPLATE = '<fork-boilerplate>';
const DIRECTIVE = /DIRECTIVE: ([\s\S]*)$/;
const SLOW_STEPS = 60;

/** What the XSS check expects to see as text, and must never see run. */
export const HOSTILE_REPORT = [
  'Scope: check how the panel shows hostile output.',
  'Result: <img src=x onerror="window.__forkPwned=1"> and <script>window.__forkPwned=2</script> stay text;',
  'so does [this link](javascript:window.__forkPwned=3).',
].join('\n');

export function panelResponder(): Responder {
  const demo = demoResponder();
  return req => forkTurn(req) ?? demo(req);
}

function blocks(message: Msg): Block[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function forkTurn(req: ReceivedRequest): ScriptedTurn | undefined {
  const messages = (req.body as { messages?: Msg[] } | undefined)?.messages ?? [];
  let at = -1;
  for (let i = messages.length - 1; i >= 0 && at < 0; i--) {
    if (messages[i].role === 'user' && blocks(messages[i]).some(b => b.type === 'text' && b.text?.includes(BOILERPLATE))) at = i;
  }
  if (at < 0) return undefined;
  const directiveText = blocks(messages[at]).find(b => b.type === 'text' && b.text?.includes(BOILERPLATE))?.text ?? '';
  const directive = DIRECTIVE.exec(directiveText)?.[1].trim() ?? '';
  const results = messages.slice(at + 1).flatMap(m => (m.role === 'user' ? blocks(m) : [])).filter(b => b.type === 'tool_result');
  const continued = messages.slice(at + 1).some(m => m.role === 'user' && blocks(m).some(b => b.type === 'text' && b.text?.trim()));
  if (continued) return say('Scope: the follow-up message.\nResult: continued as asked.');
  const write = /\bwrite\s+([\w./-]+)/i.exec(directive);
  if (write) {
    if (results.length === 0) {
      return { content: [{ type: 'tool_use', name: 'write_file', input: { path: write[1], content: 'Notes written by a fork.\n' } }] };
    }
    const denied = results[0].is_error === true;
    return say(`Scope: write ${write[1]}.\nResult: ${denied ? 'the write was not allowed' : `wrote ${write[1]}`}.\nFiles changed: ${denied ? 'none' : write[1]}`);
  }
  if (/\bxss\b/i.test(directive)) return say(HOSTILE_REPORT);
  if (/\bslow\b/i.test(directive) && results.length < SLOW_STEPS) {
    return { content: [{ type: 'text', text: `Pass ${results.length + 1}: listing again.` }, { type: 'tool_use', name: 'list_files', input: { pattern: '**/*' } }] };
  }
  if (results.length === 0) return { content: [{ type: 'text', text: 'Listing the workspace first.' }, { type: 'tool_use', name: 'list_files', input: { pattern: '**/*' } }] };
  return say(report(directive));
}

function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

function report(directive: string): string {
  return [
    `Scope: ${directive}.`,
    'Result: the sample project is a tiny greeter with a math helper.',
    '',
    '- `src/greet.js` exports **greet(name)** and a `Greeter` class',
    '- `src/math.js` exports `add` and `multiply`',
    '- `README.md` describes the project in two lines',
    '',
    'Key files: src/greet.js, src/math.js, README.md',
    'Files changed: none',
    'Verification: listed the workspace files.',
  ].join('\n');
}
