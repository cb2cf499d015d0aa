// Globs for list_files and grep, compiled by picomatch (`*`, `**`, `?`, `{a,b}`, `[abc]`, `\` escapes) with
// dot files included, as the tools have always listed them. picomatch's regexes can still backtrack badly on
// patterns like `*a*a*a*a*a*a*b`, so callers match off the main thread with a budget (offThreadMatch.ts).
import picomatch from 'picomatch';
import { ToolError } from './types';

/** picomatch reads `(a|b)` as a regex group even without extglobs; in our globs they are plain characters. */
function literalParens(glob: string): string {
  return glob.replace(/\\.|[()|]/g, match => (match.length === 2 ? match : `\\${match}`));
}

/** Compiles a glob matched against a whole slash-separated relative path. Throws ToolError when malformed. */
export function compileGlob(glob: string): RegExp {
  let g = glob.trim();
  while (g.startsWith('./')) g = g.slice(2);
  if (g === '') throw new ToolError('Glob pattern is empty.');
  try {
    return picomatch.makeRe(literalParens(g), { dot: true, nonegate: true, noextglob: true, posix: true, strictBrackets: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const missing = /Missing closing: "(.)"/.exec(message)?.[1];
    const open = missing === '}' ? '{' : missing === ']' ? '[' : missing === ')' ? '(' : undefined;
    throw new ToolError(open ? `Glob "${glob}" has an unmatched "${open}".` : `Glob "${glob}" is malformed: ${message}`);
  }
}
