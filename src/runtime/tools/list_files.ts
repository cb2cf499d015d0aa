// list_files: find files by glob, so the model can discover the tree without a shell.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { compileGlob } from './glob';
import { expectObject, optionalString, peekString, safeDescribe } from './input';
import { fsToolError } from './fsErrors';
import { resolveInsideRoot } from './pathGuard';
import { OffThreadRegex } from './offThreadMatch';
import { walkFiles } from './walk';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'list_files';
export const LIST_MAX_FILES = 1000;
const DEFAULT_PATTERN = '**/*';
/** Paths sent to the matcher at once (each batch has its own time budget). */
const MATCH_BATCH = 1000;

export const listFilesTool: Tool = {
  definition: {
    name: NAME,
    description:
      'List the files under a folder of the workspace whose paths match a glob pattern, sorted by path, at most ' +
      `${LIST_MAX_FILES}. The pattern is matched against each path relative to \`path\`: \`*\` matches within one ` +
      'folder level, `**` any number of folders, `?` one character, `{a,b}` either alternative, `[abc]` one of the ' +
      'characters. So `*.ts` lists only the top level, `**/*.ts` every TypeScript file, `src/**/*.{ts,tsx}` those ' +
      'under src. Returns files (not folders), as paths relative to the workspace root. The .git and node_modules ' +
      'folders are skipped. Use grep to search file contents.',
    input_schema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: `Glob pattern, relative to \`path\`. Default "${DEFAULT_PATTERN}" (every file).` },
        path: { type: 'string', description: 'Folder to list, relative to the workspace root. Default: the workspace root.' },
      },
      additionalProperties: false,
    },
  },
  category: 'read',

  describe(input: unknown): string {
    return safeDescribe('List files', () => {
      const pattern = peekString(input, 'pattern') ?? DEFAULT_PATTERN;
      const where = peekString(input, 'path');
      return where ? `List ${pattern} in ${where}` : `List ${pattern}`;
    });
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['pattern', 'path']);
    let pattern = optionalString(NAME, fields, 'pattern') ?? DEFAULT_PATTERN;
    const base = await resolveInsideRoot(ctx.root, optionalString(NAME, fields, 'path') ?? '.');
    if (path.isAbsolute(pattern)) {
      // Models sometimes repeat the absolute folder in the pattern; accept it when it is the folder itself.
      const relToBase = path.relative(base.abs, pattern);
      if (relToBase.startsWith('..') || path.isAbsolute(relToBase)) {
        throw new ToolError(`list_files: pattern "${pattern}" must be relative to the folder being listed (${base.rel}).`);
      }
      pattern = relToBase.split(path.sep).join('/');
    }
    const matcher = compileGlob(pattern);

    try {
      const stat = await fs.stat(base.abs);
      if (!stat.isDirectory()) throw new ToolError(`list_files: ${base.rel} is a file, not a folder; use read_file to read it.`);
    } catch (err) {
      throw err instanceof ToolError ? err : fsToolError(err, base.rel);
    }

    const matches: string[] = [];
    const offThread = new OffThreadRegex(matcher, `the glob "${pattern}"`);
    try {
      let batch: string[] = [];
      const flush = async () => {
        const hits = await offThread.testAll(batch);
        for (let i = 0; i < batch.length; i++) if (hits[i]) matches.push(base.rel === '.' ? batch[i] : `${base.rel}/${batch[i]}`);
        batch = [];
      };
      for await (const entry of walkFiles(base, ctx.signal)) {
        batch.push(entry.relToBase);
        if (batch.length >= MATCH_BATCH) await flush();
      }
      await flush();
    } finally {
      await offThread.close();
    }
    const where = base.rel === '.' ? 'the workspace root' : base.rel;
    if (matches.length === 0) return { content: `No files match "${pattern}" under ${where}.` };
    matches.sort();
    let content = matches.slice(0, LIST_MAX_FILES).join('\n');
    if (matches.length > LIST_MAX_FILES) {
      content += `\n\n[Showing the first ${LIST_MAX_FILES} of ${matches.length} matching files; use a narrower pattern or path to see the rest.]`;
    }
    return { content };
  },
};
