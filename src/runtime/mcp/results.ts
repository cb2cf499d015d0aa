// An MCP tool result → tool_result content: text as text, images as image blocks, resource links and
// embedded resources as text that names them. Past the cap the text is cut with a note saying so.
import type { ImageBlock, TextBlock } from '../../common/transcript';

/** About 25k tokens: one result must not eat the context window. */
export const MAX_RESULT_CHARS = 100_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

type Part = Record<string, unknown>;

export function mapMcpContent(content: readonly unknown[], structured?: unknown): (TextBlock | ImageBlock)[] {
  const blocks: (TextBlock | ImageBlock)[] = [];
  for (const raw of content) {
    const part = (raw ?? {}) as Part;
    switch (part.type) {
      case 'text':
        if (typeof part.text === 'string' && part.text !== '') blocks.push({ type: 'text', text: part.text });
        break;
      case 'image': {
        const mime = String(part.mimeType ?? '');
        const data = String(part.data ?? '');
        if (IMAGE_TYPES.has(mime) && data.length <= MAX_IMAGE_BASE64) blocks.push({ type: 'image', source: { type: 'base64', media_type: mime, data } });
        else blocks.push({ type: 'text', text: `[image of type ${mime || 'unknown'}, ${data.length} base64 characters, not shown]` });
        break;
      }
      case 'audio':
        blocks.push({ type: 'text', text: `[audio of type ${String(part.mimeType ?? 'unknown')}, not shown]` });
        break;
      case 'resource_link':
        blocks.push({ type: 'text', text: `Resource link: ${String(part.name ?? part.uri)} <${String(part.uri)}>${part.mimeType ? ` (${String(part.mimeType)})` : ''}${part.description ? ` — ${String(part.description)}` : ''}` });
        break;
      case 'resource': {
        const resource = (part.resource ?? {}) as Part;
        if (typeof resource.text === 'string') blocks.push({ type: 'text', text: `Resource ${String(resource.uri)}:\n${resource.text}` });
        else blocks.push({ type: 'text', text: `Resource ${String(resource.uri)} (${String(resource.mimeType ?? 'binary')}, not shown)` });
        break;
      }
      default:
        blocks.push({ type: 'text', text: `[content of type ${String(part.type)} not shown]` });
    }
  }
  if (blocks.length === 0 && structured !== undefined) blocks.push({ type: 'text', text: JSON.stringify(structured) });
  return capText(blocks);
}

function capText(blocks: (TextBlock | ImageBlock)[]): (TextBlock | ImageBlock)[] {
  let left = MAX_RESULT_CHARS;
  let total = 0;
  const out: (TextBlock | ImageBlock)[] = [];
  for (const block of blocks) {
    if (block.type !== 'text') {
      out.push(block);
      continue;
    }
    total += block.text.length;
    if (left <= 0) continue;
    out.push(block.text.length <= left ? block : { type: 'text', text: block.text.slice(0, left) });
    left -= block.text.length;
  }
  if (total > MAX_RESULT_CHARS) {
    out.push({ type: 'text', text: `[The result was cut: ${total} characters of text, the first ${MAX_RESULT_CHARS} shown.]` });
  }
  return out;
}
