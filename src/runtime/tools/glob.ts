// A small glob-to-RegExp compiler: `*`, `**`, `?`, `{a,b}` (nestable), `[abc]`/`[!abc]` and `\` escapes.
// Written here rather than pulled in as a dependency; paths use forward slashes.
import { ToolError } from './types';

const REGEX_SPECIAL = /[.+^$()|[\]{}\\*?]/g;

function escapeRegex(text: string): string {
  return text.replace(REGEX_SPECIAL, '\\$&');
}

class Parser {
  private i = 0;
  constructor(private readonly glob: string) {}

  parse(): string {
    const source = this.sequence(false);
    if (this.i < this.glob.length) throw new ToolError(`Glob "${this.glob}" has an unmatched "}".`);
    return source;
  }

  /** A run of glob text; inside braces it stops at `,` or `}` for the caller. */
  private sequence(inBraces: boolean): string {
    let out = '';
    const g = this.glob;
    while (this.i < g.length) {
      const c = g[this.i];
      if (inBraces && (c === ',' || c === '}')) return out;
      if (c === '}' && !inBraces) return out;
      if (c === '\\') {
        out += escapeRegex(g[this.i + 1] ?? '\\');
        this.i += 2;
      } else if (c === '*') {
        out += this.star();
      } else if (c === '?') {
        out += '[^/]';
        this.i++;
      } else if (c === '[') {
        out += this.bracket();
      } else if (c === '{') {
        out += this.braces();
      } else {
        out += escapeRegex(c);
        this.i++;
      }
    }
    return out;
  }

  private star(): string {
    const g = this.glob;
    const start = this.i;
    while (g[this.i] === '*') this.i++;
    const count = this.i - start;
    const prev = start === 0 ? '/' : g[start - 1];
    const atSegmentStart = prev === '/' || prev === '{' || prev === ',';
    if (count >= 2 && atSegmentStart) {
      if (g[this.i] === '/') {
        this.i++;
        return '(?:[^/]*/)*'; // `**/`: zero or more whole folders
      }
      if (this.i === g.length || g[this.i] === ',' || g[this.i] === '}') return '.*';
    }
    return '[^/]*';
  }

  private bracket(): string {
    const g = this.glob;
    const close = g.indexOf(']', this.i + 2);
    if (close === -1) {
      this.i++;
      return '\\[';
    }
    let body = g.slice(this.i + 1, close);
    this.i = close + 1;
    const negated = body.startsWith('!') || body.startsWith('^');
    if (negated) body = body.slice(1);
    const escaped = body.replace(/[\\\]^[]/g, '\\$&');
    // A class never matches the separator, like `*` and `?`.
    return negated ? `[^/${escaped}]` : `(?!/)[${escaped}]`;
  }

  private braces(): string {
    const alternatives: string[] = [];
    this.i++; // `{`
    for (;;) {
      alternatives.push(this.sequence(true));
      const c = this.glob[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return `(?:${alternatives.join('|')})`;
      }
      throw new ToolError(`Glob "${this.glob}" has an unmatched "{".`);
    }
  }
}

/** Compiles a glob matched against a whole slash-separated relative path. Throws ToolError when malformed. */
export function compileGlob(glob: string): RegExp {
  let g = glob.trim();
  while (g.startsWith('./')) g = g.slice(2);
  if (g === '') throw new ToolError('Glob pattern is empty.');
  return new RegExp(`^${new Parser(g).parse()}$`);
}
