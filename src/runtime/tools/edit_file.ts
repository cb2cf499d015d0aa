// edit_file: exact string replacement. Requiring a unique match (unless replace_all) makes the model
// quote enough context that it cannot silently edit the wrong spot.
import { expectObject, optionalBoolean, peekString, requireString, safeDescribe } from './input';
import { assertGitWriteAllowed, writeApprovalCategory } from './gitGuard';
import { assertFileAllowed } from './fileRules';
import { resolveInsideRoot } from './pathGuard';
import { readInsideRoot, writeInsideRoot } from './rootedFs';
import { looksBinary } from './text';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'edit_file';

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Splices by offset: String.replace would interpret `$&`, `$1`… in new_string. */
function replaceAt(text: string, starts: number[], oldLength: number, replacement: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const start of starts) {
    parts.push(text.slice(from, start), replacement);
    from = start + oldLength;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

export const editFileTool: Tool = {
  definition: {
    name: NAME,
    description:
      'Replace an exact piece of text in an existing file. `old_string` must match the file character for character ' +
      '(whitespace and indentation included, without the line-number prefix read_file shows) and must occur exactly ' +
      'once, unless `replace_all` is true; include a few surrounding lines to make it unique. `new_string` replaces it ' +
      'and must differ from `old_string`. Read the file first so you quote its current text. To create a file or ' +
      'rewrite it entirely use write_file.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to edit, relative to the workspace root.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to put in its place (may be empty to delete).' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one. Default false.' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
  },
  category: 'edit',
  approvalCategory: writeApprovalCategory,

  describe(input: unknown): string {
    return safeDescribe('Edit a file', () => `Edit ${peekString(input, 'path') ?? 'a file'}`);
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['path', 'old_string', 'new_string', 'replace_all']);
    const userPath = requireString(NAME, fields, 'path');
    let oldString = requireString(NAME, fields, 'old_string');
    let newString = requireString(NAME, fields, 'new_string');
    const replaceAll = optionalBoolean(NAME, fields, 'replace_all') ?? false;
    if (oldString === '') throw new ToolError('edit_file: old_string is empty; to create a file use write_file.');
    if (oldString === newString) throw new ToolError('edit_file: old_string and new_string are identical, so there is nothing to change.');
    const { abs, rel, root } = await resolveInsideRoot(ctx.root, userPath);
    assertGitWriteAllowed(rel, ctx);
    assertFileAllowed(abs, rel, ctx, 'write');

    const buffer = await readInsideRoot(root, rel, 'give a file path to edit.');
    if (looksBinary(buffer)) throw new ToolError(`${rel} looks like a binary file; edit_file only edits text.`);
    const text = buffer.toString('utf8');

    let starts = occurrences(text, oldString);
    if (starts.length === 0 && text.includes('\r\n') && /(^|[^\r])\n/.test(oldString)) {
      // The file uses CRLF but the model quoted LF lines: match and write in the file's own line endings.
      const crlfOld = oldString.replace(/\r?\n/g, '\r\n');
      const crlfStarts = occurrences(text, crlfOld);
      if (crlfStarts.length > 0) {
        oldString = crlfOld;
        newString = newString.replace(/\r?\n/g, '\r\n');
        starts = crlfStarts;
      }
    }
    if (starts.length === 0) {
      throw new ToolError(
        `edit_file: old_string was not found in ${rel}. It must match the file exactly, including whitespace and ` +
        'indentation; read the file again and copy the text without the line-number prefix.',
      );
    }
    if (starts.length > 1 && !replaceAll) {
      const lines = starts.slice(0, 10).map(s => lineAt(text, s)).join(', ');
      throw new ToolError(
        `edit_file: old_string occurs ${starts.length} times in ${rel} (lines ${lines}${starts.length > 10 ? ', …' : ''}). ` +
        'Include more surrounding text to make it unique, or set replace_all to true to change every occurrence.',
      );
    }

    await writeInsideRoot(root, rel, replaceAt(text, starts, oldString.length, newString), { createFolders: false });
    const where = starts.length === 1 ? `1 occurrence at line ${lineAt(text, starts[0])}` : `${starts.length} occurrences`;
    return { content: `Edited ${rel}: replaced ${where}.`, files: [rel] };
  },
};
