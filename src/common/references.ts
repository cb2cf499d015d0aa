// Chat references (`#file`, `#selection`, dragged files, images) as content of the prompt entry, within a
// size cap: what does not fit is cut, and a note says so. Pure: the host reads the files, the runtime
// turns them into blocks, so a fork inherits them with the turn that carried them.
import type { ContentBlock } from './transcript';

export type PromptReference =
  | { kind: 'file'; path: string; text: string; range?: { startLine: number; endLine: number } }
  | { kind: 'text'; name: string; text: string }
  | { kind: 'image'; name: string; mimeType: string; data: string };

/** About 25k tokens of referenced text per prompt. */
export const MAX_REFERENCE_CHARS = 100_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function referenceBlocks(references: readonly PromptReference[] | undefined, maxChars: number = MAX_REFERENCE_CHARS): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let left = maxChars;
  const cut: string[] = [];
  for (const ref of references ?? []) {
    if (ref.kind === 'image') {
      if (IMAGE_TYPES.has(ref.mimeType) && typeof ref.data === 'string' && ref.data !== '') {
        blocks.push({ type: 'text', text: `<reference name="${attr(ref.name)}" type="${attr(ref.mimeType)}">(image below)</reference>` });
        blocks.push({ type: 'image', source: { type: 'base64', media_type: ref.mimeType, data: ref.data } });
      } else {
        blocks.push({ type: 'text', text: `<reference name="${attr(ref.name)}">(an attachment of type ${attr(ref.mimeType)}, not sent)</reference>` });
      }
      continue;
    }
    const label = ref.kind === 'file' ? `path="${attr(ref.path)}"${ref.range ? ` lines="${ref.range.startLine}-${ref.range.endLine}"` : ''}` : `name="${attr(ref.name)}"`;
    const name = ref.kind === 'file' ? ref.path : ref.name;
    let text = typeof ref.text === 'string' ? ref.text : '';
    if (text.length > left) {
      cut.push(`${name} (${text.length} characters, ${Math.max(0, left)} sent)`);
      text = text.slice(0, Math.max(0, left));
    }
    left -= text.length;
    blocks.push({ type: 'text', text: `<reference ${label}>\n${text}\n</reference>` });
  }
  if (cut.length > 0) {
    blocks.push({ type: 'text', text: `<system-reminder>References were cut to fit ${maxChars} characters: ${cut.join('; ')}. Read the files for the rest.</system-reminder>` });
  }
  return blocks;
}

function attr(value: string): string {
  return String(value).replace(/[<>"&\n]/g, ch => ({ '<': '&lt;', '>': '&gt;', '"': '&quot;', '&': '&amp;', '\n': ' ' })[ch] ?? ch);
}
