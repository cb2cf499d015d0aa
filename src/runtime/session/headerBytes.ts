// A session file's header line, byte for byte what JSON.stringify({ type: 'header', header }) writes,
// with the two large fields a fork copies from its parent — the system prompt and the tool definitions,
// most of a fork's 13 KB start — encoded once and reused. Fifty siblings started together encoded the
// same 10 KB fifty times on the runtime's only thread, and collected the garbage (docs/benchmarks.md).
import type { SessionHeader } from '../../common/transcript';

/** Encoded tool lists, by the list's identity: a fork's header shares its parent's list. */
const toolsJson = new WeakMap<object, Buffer>();
/** The last system prompts encoded (a runtime serves few at once): compared by value, cheap for one string. */
const promptJson: { text: string; bytes: Buffer }[] = [];
const PROMPTS_KEPT = 4;

/** The header record's line, newline included. */
export function headerLine(header: SessionHeader): Buffer {
  return Buffer.concat(headerParts(header));
}

/** The header record's line in pieces, the cached ones shared (never change them): written with one writev. */
export function headerParts(header: SessionHeader): Buffer[] {
  const parts: Buffer[] = [];
  let text = '{"type":"header","header":{';
  let first = true;
  for (const key of Object.keys(header) as (keyof SessionHeader)[]) {
    const value = header[key];
    // As JSON.stringify: a property whose value is undefined (or a function) is left out.
    if (value === undefined || typeof value === 'function') continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    const cached = key === 'tools' ? toolsBytes(header.tools) : key === 'systemPrompt' ? promptBytes(header.systemPrompt) : undefined;
    if (cached) {
      parts.push(Buffer.from(text, 'utf8'), cached);
      text = '';
    } else {
      text += JSON.stringify(value);
    }
  }
  parts.push(Buffer.from(text + '}}\n', 'utf8'));
  return parts;
}

function toolsBytes(tools: SessionHeader['tools']): Buffer | undefined {
  if (!Array.isArray(tools)) return undefined;
  let bytes = toolsJson.get(tools);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(tools), 'utf8');
    toolsJson.set(tools, bytes);
  }
  return bytes;
}

function promptBytes(prompt: string): Buffer | undefined {
  if (typeof prompt !== 'string') return undefined;
  const known = promptJson.find(p => p.text === prompt);
  if (known) return known.bytes;
  const bytes = Buffer.from(JSON.stringify(prompt), 'utf8');
  promptJson.unshift({ text: prompt, bytes });
  promptJson.length = Math.min(promptJson.length, PROMPTS_KEPT);
  return bytes;
}
