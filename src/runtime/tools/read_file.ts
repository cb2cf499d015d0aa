// read_file: numbered lines of a text file, paged by offset/limit and capped so one call cannot
// flood the context. Streams the file so reading a window of a huge log stays cheap.
import { expectObject, optionalInteger, peekString, requireString, safeDescribe } from './input';
import { fsToolError } from './fsErrors';
import { assertFileAllowed } from './fileRules';
import { resolveInsideRoot } from './pathGuard';
import { openForRead } from './rootedFs';
import { looksBinary } from './text';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'read_file';
export const READ_MAX_LINES = 2000;
export const READ_MAX_BYTES = 256 * 1024;
const MAX_LINE_CHARS = 2000;
/** Bytes kept of one line: enough for MAX_LINE_CHARS characters of UTF-8. */
const KEEP_LINE_BYTES = MAX_LINE_CHARS * 4;
const CHUNK = 64 * 1024;

function formatLine(n: number, text: string): string {
  return `${String(n).padStart(6)}\t${text}`;
}

interface Window {
  lines: string[];
  /** Number of the last line read from the file (shown or skipped). */
  lastLine: number;
  stop?: 'lines' | 'bytes';
}

async function readWindow(root: string, rel: string, offset: number, limit: number, signal: AbortSignal): Promise<Window> {
  const fh = await openForRead(root, rel, { folderHint: 'use list_files to see its contents.' });
  try {
    const window: Window = { lines: [], lastLine: 0 };
    let outBytes = 0;
    let kept: Buffer[] = [];
    let keptBytes = 0;
    let lineLength = 0;

    // Returns false once the window is full: the caller then knows at least one more line exists.
    const finishLine = (): boolean => {
      const n = window.lastLine + 1;
      if (n >= offset) {
        if (window.lines.length >= limit) { window.stop = 'lines'; return false; }
        let text = Buffer.concat(kept).toString('utf8');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        if (lineLength > keptBytes || text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}… [line truncated]`;
        const formatted = formatLine(n, text);
        const size = Buffer.byteLength(formatted) + 1;
        if (outBytes + size > READ_MAX_BYTES && window.lines.length > 0) { window.stop = 'bytes'; return false; }
        window.lines.push(formatted);
        outBytes += size;
      }
      window.lastLine = n;
      kept = [];
      keptBytes = 0;
      lineLength = 0;
      return true;
    };
    const keep = (part: Buffer): void => {
      lineLength += part.length;
      // Lines before the window are only counted, never decoded.
      if (window.lastLine + 1 < offset || keptBytes >= KEEP_LINE_BYTES) return;
      const slice = part.subarray(0, KEEP_LINE_BYTES - keptBytes);
      kept.push(Buffer.from(slice));
      keptBytes += slice.length;
    };

    const buffer = Buffer.alloc(CHUNK);
    let first = true;
    for (;;) {
      if (signal.aborted) throw new ToolError('read_file was cancelled.');
      const { bytesRead } = await fh.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (first && looksBinary(chunk)) throw new ToolError(`${rel} looks like a binary file (it contains NUL bytes); read_file only reads text.`);
      first = false;
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        keep(chunk.subarray(start, nl));
        if (!finishLine()) return window;
        start = nl + 1;
      }
      if (start < chunk.length) {
        if (window.lines.length >= limit) { window.stop = 'lines'; return window; }
        keep(chunk.subarray(start));
      }
    }
    // A last line without a trailing newline.
    if (lineLength > 0) finishLine();
    return window;
  } finally {
    await fh.close();
  }
}

export const readFileTool: Tool = {
  definition: {
    name: NAME,
    description:
      'Read a text file in the workspace. Returns its lines numbered like `cat -n` (line number, a tab, then the ' +
      `line), at most ${READ_MAX_LINES} lines or 256 KB per call, starting at \`offset\`. For long files page with ` +
      '`offset` and `limit`; the result says where to continue. Lines longer than 2000 characters are cut. ' +
      'Binary files are refused; for directories use list_files. The line-number prefix is not part of the file: ' +
      'leave it out when quoting text for edit_file. Paths are relative to the workspace root (absolute paths inside it work too).',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to read, relative to the workspace root.' },
        offset: { type: 'integer', minimum: 1, description: 'First line to return, 1-based. Default 1.' },
        limit: { type: 'integer', minimum: 1, description: `Maximum number of lines to return. Default and cap ${READ_MAX_LINES}.` },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  category: 'read',

  describe(input: unknown): string {
    return safeDescribe('Read a file', () => {
      const p = peekString(input, 'path') ?? 'a file';
      const offset = (input as { offset?: unknown }).offset;
      return typeof offset === 'number' && offset > 1 ? `Read ${p} from line ${offset}` : `Read ${p}`;
    });
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['path', 'offset', 'limit']);
    const userPath = requireString(NAME, fields, 'path');
    const offset = optionalInteger(NAME, fields, 'offset', 1, Number.MAX_SAFE_INTEGER) ?? 1;
    const limit = Math.min(optionalInteger(NAME, fields, 'limit', 1, Number.MAX_SAFE_INTEGER) ?? READ_MAX_LINES, READ_MAX_LINES);
    const { abs, rel, root } = await resolveInsideRoot(ctx.root, userPath);
    assertFileAllowed(abs, rel, ctx, 'read');

    let window: Window;
    try {
      window = await readWindow(root, rel, offset, limit, ctx.signal);
    } catch (err) {
      throw err instanceof ToolError ? err : fsToolError(err, rel);
    }

    const files = [rel];
    if (window.lines.length === 0) {
      if (window.lastLine === 0) return { content: `[${rel} is empty.]`, files };
      throw new ToolError(`offset ${offset} is past the end of ${rel}, which has ${window.lastLine} line${window.lastLine === 1 ? '' : 's'}.`);
    }
    const firstShown = offset;
    const lastShown = offset + window.lines.length - 1;
    let content = window.lines.join('\n');
    if (window.stop === 'lines') {
      content += `\n\n[Showing lines ${firstShown}-${lastShown} of ${rel}; more lines follow. Call read_file with offset=${lastShown + 1} to continue.]`;
    } else if (window.stop === 'bytes') {
      content += `\n\n[Output capped at 256 KB after line ${lastShown} of ${rel}; more lines follow. Call read_file with offset=${lastShown + 1} to continue.]`;
    }
    return { content, files };
  },
};
