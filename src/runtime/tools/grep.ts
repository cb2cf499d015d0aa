// grep: regex search over file contents. Uses ripgrep (VS Code ships one) when the host passes its path,
// else a plain JS walk; both print `path:line:text` in the same order (`rg --sort path`).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { compileGlob } from './glob';
import { expectObject, optionalBoolean, optionalString, peekString, requireString, safeDescribe } from './input';
import { errorCode, fsToolError } from './fsErrors';
import { resolveInsideRoot } from './pathGuard';
import type { ResolvedPath } from './pathGuard';
import { OffThreadRegex } from './offThreadMatch';
import { openForRead } from './rootedFs';
import { looksBinary, truncateLine } from './text';
import { walkFiles } from './walk';
import { ToolError } from './types';
import type { Tool, ToolContext, ToolOutput } from './types';

const NAME = 'grep';
export const GREP_MAX_LINES = 500;
export const GREP_MAX_CHARS = 40_000;
const MAX_LINE_CHARS = 400;
const TIMEOUT_MS = 60_000;
/** The fallback skips files bigger than this: they are almost never source code. */
const FALLBACK_MAX_FILE_BYTES = 20 * 1024 * 1024;

interface Search {
  pattern: string;
  rootAbs: string;
  base: ResolvedPath;
  isFile: boolean;
  glob?: string;
  ignoreCase: boolean;
}

/** Collects output lines up to the caps; `add` returns false once full. */
class Collector {
  readonly lines: string[] = [];
  capped = false;
  private chars = 0;
  add(line: string): boolean {
    if (this.capped) return false;
    const shown = truncateLine(line, MAX_LINE_CHARS);
    if (this.lines.length >= GREP_MAX_LINES || this.chars + shown.length + 1 > GREP_MAX_CHARS) {
      this.capped = true;
      return false;
    }
    this.lines.push(shown);
    this.chars += shown.length + 1;
    return true;
  }
}

function ripgrepArgs(s: Search): string[] {
  const args = ['--line-number', '--no-heading', '--color', 'never', '--with-filename', '--no-config', '--hidden', '--sort', 'path'];
  args.push('--glob', '!.git', '--glob', '!node_modules');
  if (s.ignoreCase) args.push('--ignore-case');
  if (s.glob !== undefined) args.push('--glob', s.glob);
  // `--` first: the pattern and path are user text and must never be read as options.
  args.push('--', s.pattern);
  if (s.base.rel !== '.') args.push(s.base.rel);
  return args;
}

/** Runs ripgrep; resolves 'missing' when the binary cannot be started so the caller falls back. */
function runRipgrep(rgPath: string, s: Search, out: Collector, signal: AbortSignal): Promise<{ warnings: string } | 'missing'> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(s), { cwd: s.rootAbs, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    let stderr = '';
    let stopped: 'cap' | 'abort' | 'timeout' | undefined;
    const stop = (why: 'cap' | 'abort' | 'timeout') => {
      if (!stopped) stopped = why;
      child.kill('SIGTERM');
    };
    const onAbort = () => stop('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop('abort');
    const timer = setTimeout(() => stop('timeout'), TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stopped) return;
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        if (!out.add(line.replace(/\r$/, ''))) {
          stop('cap');
          return;
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', err => {
      cleanup();
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'EACCES') resolve('missing');
      else reject(new ToolError(`grep: could not run ripgrep: ${err.message}`));
    });
    child.on('close', code => {
      cleanup();
      if (!stopped && pending !== '') out.add(pending.replace(/\r$/, ''));
      if (stopped === 'abort') return reject(new ToolError('grep was cancelled.'));
      if (stopped === 'timeout') return reject(new ToolError(`grep timed out after ${TIMEOUT_MS / 1000} s; search a narrower path or glob.`));
      if (stopped === 'cap' || code === 0 || code === 1) return resolve({ warnings: code === 0 || code === 1 ? '' : stderr.trim() });
      // Exit 2: an error. With no results it is the answer (a bad regex, say); with results, a footnote.
      if (out.lines.length === 0) return reject(new ToolError(`grep: ${stderr.trim() || `ripgrep failed (exit code ${code})`}`));
      resolve({ warnings: stderr.trim() });
    });
  });
}

/** ripgrep's --glob semantics: no slash matches the file name at any depth, else the root-relative path. */
interface GlobFilter { matcher: OffThreadRegex; byName: boolean; negated: boolean }

function globRegex(glob: string): { re: RegExp; byName: boolean; negated: boolean } {
  const negated = glob.startsWith('!');
  let body = negated ? glob.slice(1) : glob;
  if (body.startsWith('/')) body = body.slice(1);
  return { re: compileGlob(body), byName: !body.includes('/'), negated };
}

async function accepts(filter: GlobFilter | undefined, rootRel: string): Promise<boolean> {
  if (!filter) return true;
  const subject = filter.byName ? rootRel.slice(rootRel.lastIndexOf('/') + 1) : rootRel;
  const [hit] = await filter.matcher.testAll([subject]);
  return hit !== filter.negated;
}

/** Searches one opened file; false once the output is full. Matching runs off the main thread. */
async function searchFile(handle: FileHandle | undefined, rootRel: string, matcher: OffThreadRegex, out: Collector): Promise<boolean> {
  if (!handle) return true;
  let buffer: Buffer;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > FALLBACK_MAX_FILE_BYTES) return true;
    buffer = await handle.readFile();
  } catch {
    return true; // unreadable file: skip, like ripgrep does
  } finally {
    await handle.close();
  }
  if (looksBinary(buffer)) return true;
  const text = buffer.toString('utf8');
  const hits = await matcher.matchingLines(text, GREP_MAX_LINES + 1);
  if (hits.length === 0) return true;
  const lines = text.split('\n');
  for (const i of hits) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (!out.add(`${rootRel}:${i + 1}:${line}`)) return false;
  }
  return true;
}

async function runFallback(s: Search, out: Collector, signal: AbortSignal): Promise<void> {
  let re: RegExp;
  try {
    re = new RegExp(s.pattern, s.ignoreCase ? 'i' : '');
  } catch (err) {
    throw new ToolError(`grep: ${(err as Error).message}`); // "Invalid regular expression: /a(/: …"
  }
  const matcher = new OffThreadRegex(re, `/${s.pattern}/`);
  let filter: GlobFilter | undefined;
  try {
    if (s.isFile) {
      if (signal.aborted) throw new ToolError('grep was cancelled.');
      // An explicit file is searched whatever the glob, as rg does.
      const handle = await openForRead(s.base.root, s.base.rel, { folderHint: 'give a folder or a file.' });
      await searchFile(handle, s.base.rel, matcher, out);
      return;
    }
    if (s.glob !== undefined) {
      const { re: globRe, byName, negated } = globRegex(s.glob);
      filter = { matcher: new OffThreadRegex(globRe, `the glob "${s.glob}"`), byName, negated };
    }
    const deadline = Date.now() + TIMEOUT_MS;
    for await (const entry of walkFiles(s.base, signal)) {
      if (entry.isSymlink) continue; // never follow links out of the root (ripgrep skips them too)
      const rootRel = s.base.rel === '.' ? entry.relToBase : `${s.base.rel}/${entry.relToBase}`;
      if (!(await accepts(filter, rootRel))) continue;
      if (!(await searchFile(await entry.open(), rootRel, matcher, out))) return;
      if (Date.now() > deadline) throw new ToolError(`grep timed out after ${TIMEOUT_MS / 1000} s; search a narrower path or glob.`);
    }
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(error.message.startsWith('grep') ? error.message : `grep: ${error.message}`);
    throw error;
  } finally {
    await matcher.close();
    await filter?.matcher.close();
  }
}

export const grepTool: Tool = {
  definition: {
    name: NAME,
    description:
      'Search file contents with a regular expression (ripgrep / JavaScript syntax: `\\bfoo\\(`, `a|b`, …). ' +
      'Prints each matching line as `path:line:text` with the path relative to the workspace root, files in path ' +
      `order, at most ${GREP_MAX_LINES} lines; long lines are cut. Searches the workspace root or \`path\` (a folder ` +
      'or one file). `glob` limits which files are searched: without a slash it matches file names at any depth ' +
      '(`*.ts`, `*.{ts,tsx}`), with a slash the path from the workspace root (`src/**/*.ts`); a leading `!` ' +
      'excludes. Hidden files are searched; .git, node_modules and binary files are skipped (and, when ripgrep is ' +
      'available, files ignored by .gitignore). Use list_files to find files by name.',
    input_schema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression to search for.' },
        path: { type: 'string', description: 'Folder or file to search, relative to the workspace root. Default: the workspace root.' },
        glob: { type: 'string', description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".' },
        ignore_case: { type: 'boolean', description: 'Match case-insensitively. Default false.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  category: 'read',

  describe(input: unknown): string {
    return safeDescribe('Search file contents', () => {
      const pattern = peekString(input, 'pattern', 60) ?? '';
      const where = peekString(input, 'path');
      return `Search for "${pattern}"${where ? ` in ${where}` : ''}`;
    });
  },

  async run(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const fields = expectObject(NAME, input, ['pattern', 'path', 'glob', 'ignore_case']);
    const pattern = requireString(NAME, fields, 'pattern');
    if (pattern === '') throw new ToolError('grep: pattern is empty.');
    const userPath = optionalString(NAME, fields, 'path') ?? '.';
    const glob = optionalString(NAME, fields, 'glob');
    const ignoreCase = optionalBoolean(NAME, fields, 'ignore_case') ?? false;
    if (glob !== undefined) globRegex(glob); // reports a malformed glob the same way on both paths

    const root = await resolveInsideRoot(ctx.root, '.');
    const base = await resolveInsideRoot(ctx.root, userPath);
    let isFile: boolean;
    try {
      isFile = !(await fs.stat(base.abs)).isDirectory();
    } catch (err) {
      throw fsToolError(err, base.rel);
    }
    const search: Search = { pattern, rootAbs: root.abs, base, isFile, glob, ignoreCase };

    const out = new Collector();
    let warnings = '';
    const viaRipgrep = ctx.ripgrepPath ? await runRipgrep(ctx.ripgrepPath, search, out, ctx.signal) : 'missing';
    if (viaRipgrep === 'missing') await runFallback(search, out, ctx.signal);
    else warnings = viaRipgrep.warnings;

    const where = base.rel === '.' ? 'the workspace' : base.rel;
    let content = out.lines.length > 0 ? out.lines.join('\n') : `No matches for /${pattern}/ in ${where}${glob ? ` (files matching ${glob})` : ''}.`;
    if (out.capped) {
      content += `\n\n[Output capped at ${out.lines.length} lines; narrow the pattern, path or glob to see the rest.]`;
    }
    if (warnings) content += `\n\n[ripgrep warnings: ${truncateLine(warnings.replace(/\s+/g, ' '), 500)}]`;
    return { content };
  },
};
