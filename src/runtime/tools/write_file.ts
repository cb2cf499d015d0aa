// write_file: create or overwrite a whole file, creating missing parent folders.
import { expectObject, peekString, requireString, safeDescribe } from './input';
import { assertGitWriteAllowed, writeApprovalCategory } from './gitGuard';
import { assertFileAllowed } from './fileRules';
import { resolveInsideRoot } from './pathGuard';
import { writeInsideRoot } from './rootedFs';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'write_file';

function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

export const writeFileTool: Tool = {
  definition: {
    name: NAME,
    description:
      'Create a file or overwrite an existing one with the given content; missing parent folders are created. ' +
      'The content is written exactly as given (include the final newline if the file should end with one). ' +
      'To change part of an existing file prefer edit_file, which keeps the rest intact; read a file before ' +
      'overwriting it. Paths are relative to the workspace root; writing outside it is refused.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to write, relative to the workspace root.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  category: 'edit',
  approvalCategory: writeApprovalCategory,

  describe(input: unknown): string {
    return safeDescribe('Write a file', () => `Write ${peekString(input, 'path') ?? 'a file'}`);
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['path', 'content']);
    const userPath = requireString(NAME, fields, 'path');
    const content = requireString(NAME, fields, 'content');
    const { abs, rel, root } = await resolveInsideRoot(ctx.root, userPath);
    if (rel === '.') throw new ToolError('write_file needs a file path, not the workspace root.');
    assertGitWriteAllowed(rel, ctx);
    assertFileAllowed(abs, rel, ctx, 'write');

    const { existed } = await writeInsideRoot(root, rel, content, { createFolders: true });
    const lines = countLines(content);
    const bytes = Buffer.byteLength(content, 'utf8');
    return {
      content: `${existed ? 'Overwrote' : 'Created'} ${rel} (${lines} line${lines === 1 ? '' : 's'}, ${bytes} bytes).`,
      files: [rel],
    };
  },
};
