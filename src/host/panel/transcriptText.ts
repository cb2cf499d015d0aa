// A session's transcript as plain markdown text for a read-only editor ("open transcript"):
// every entry in order, tool calls and results in fences. Shown as text, never rendered: model output
// stays inert. Pure.
import type { TranscriptResult } from '../../common/protocol/runtime';
import type { ContentBlock, Entry } from '../../common/transcript';
import { cacheEffectText, noPriceText, usdText } from '../../common/pricing';
import type { CostFigures } from '../../common/pricing';

const MAX_BLOCK_CHARS = 4_000;

export function transcriptText(transcript: TranscriptResult): string {
  const { header, entries } = transcript;
  const lines = [`# ${header.title || header.id}`, '', `Session ${header.id} · ${header.settings.model} · root ${header.root}`];
  if (header.parent) lines.push(`Forked from session ${header.parent.sessionId}${header.parent.entryId ? ` at entry ${header.parent.entryId}` : ''}`);
  lines.push(`${entries.length} entries${transcript.running ? ' · running' : ''}`);
  const costs = transcript.costs;
  for (const damage of transcript.damage ?? []) lines.push(`Damaged: ${damage}`);
  lines.push(costs ? `Cost: ${costText(costs.total)} (price from ${costs.priceFrom === 'setting' ? 'fork.prices' : 'the built-in table'})` : `Cost: ${noPriceText(header.settings.model, 'editor')}`, '');
  for (const entry of entries) lines.push(...entryText(entry, costs?.entries[entry.id]), '');
  return lines.join('\n');
}

function costText(cost: CostFigures): string {
  return `${usdText(cost.usd)}, uncached ${usdText(cost.uncachedUsd)}, ${cacheEffectText(cost, { form: 'clause' })}`;
}

function entryText(entry: Entry, cost?: CostFigures): string[] {
  const who = entry.message.role === 'user' ? 'user' : 'assistant';
  const lines = [`## ${entry.kind} (${who}) · ${entry.id} · ${entry.time}`];
  for (const block of entry.message.content) lines.push(...blockText(block));
  if (entry.usage) {
    const u = entry.usage;
    lines.push(`_usage: ${u.input_tokens} in, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write, ${u.output_tokens} out${cost ? ` · cost ${costText(cost)}` : ''}_`);
  }
  return lines;
}

function blockText(block: ContentBlock): string[] {
  switch (block.type) {
    case 'text':
      return ['', block.text];
    case 'thinking':
      return ['', fence('thinking', block.thinking)];
    case 'redacted_thinking':
      return ['', '_(redacted thinking)_'];
    case 'image':
      return ['', `_(image, ${block.source.media_type})_`];
    case 'tool_use':
      return ['', fence(`tool_use ${block.name} ${block.id}`, JSON.stringify(block.input, null, 2))];
    case 'tool_result': {
      const text = typeof block.content === 'string' ? block.content : block.content.map(part => (part.type === 'text' ? part.text : '[image]')).join('\n');
      return ['', fence(`tool_result ${block.tool_use_id}${block.is_error ? ' (error)' : ''}`, text)];
    }
  }
}

function fence(info: string, body: string): string {
  const text = body.length > MAX_BLOCK_CHARS ? `${body.slice(0, MAX_BLOCK_CHARS)}\n… (${body.length - MAX_BLOCK_CHARS} more characters)` : body;
  // A fence longer than any backtick run inside keeps the body from closing it.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map(m => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${info}\n${text}\n${ticks}`;
}
