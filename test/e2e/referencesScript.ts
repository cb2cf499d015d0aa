// The fake model of the references UI checks, and readers of what the fake received. Each check's prompt
// carries a marker word, so its request is found among the Chat view's own ones (titles and the like).
import type { FakeAnthropic, ReceivedRequest, Responder, ScriptedTurn } from '../fakes/anthropicServer';

interface Block { type: string; text?: string; content?: unknown; tool_use_id?: string }
interface Body { model?: string; tools?: { name: string }[]; messages?: { role: string; content: string | Block[] }[] }

/** What a check asks when it wants the agent to call the MCP server's echo tool. */
export const ECHO_ASK = 'call the MCP echo tool with "hello from the Chat view"';

function blocks(content: string | Block[]): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** Every text block of the request's user messages, tool results' text included. */
export function userTexts(body: Body | undefined): string[] {
  return (body?.messages ?? []).filter(m => m.role === 'user').flatMap(m => blocks(m.content)).flatMap(b => {
    if (b.type === 'text') return [b.text ?? ''];
    return [];
  });
}

export function toolNames(body: Body | undefined): string[] {
  return (body?.tools ?? []).map(t => t.name);
}

/** The text of the last message's echo tool result, when the request ends with one. */
export function echoMessageOf(body: Body | undefined): string | undefined {
  const last = body?.messages?.at(-1);
  if (!last || last.role !== 'user') return undefined;
  const result = blocks(last.content).find(b => b.type === 'tool_result');
  if (!result) return undefined;
  const content = result.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? (content as Block[]).map(b => b.text ?? '').join('\n') : '';
}

/** The first request whose prompt carries `marker` (the turn's first model request). */
export function requestWith(fake: FakeAnthropic, marker: string): ReceivedRequest {
  const found = fake.requests.find(r => userTexts(r.body).some(text => text.includes(marker)));
  if (!found) throw new Error(`the fake received no request with "${marker}" (it received ${fake.requests.length})`);
  return found;
}

function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

/** Answers naming the model; on ECHO_ASK, calls mcp__everything__echo when offered, then repeats its result. */
export function referencesResponder(): Responder {
  return req => {
    const body = req.body as Body | undefined;
    const echoed = echoMessageOf(body);
    if (echoed !== undefined) return say(`The echo tool answered: ${echoed}`);
    const asked = userTexts(body).some(text => text.includes(ECHO_ASK));
    if (asked) {
      if (!toolNames(body).includes('mcp__everything__echo')) return say('There is no MCP echo tool in this chat.');
      return { content: [{ type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'hello from the Chat view' } }] };
    }
    return say(`Answered by ${body?.model ?? 'an unnamed model'}.`);
  };
}
