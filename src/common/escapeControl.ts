// Text from the model shown in an approval prompt must read as what will run: a `\r` that
// returns to the line start, an ANSI erase sequence, a newline hiding a second command, or a bidi override
// could make a command look harmless. Every such character is shown as a visible escape instead.

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\0': '\\0', '\x1b': '\\e' };

// C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates, zero-width
// characters and the BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\ufeff]/g;

/** `text` with every control or invisible formatting character as an escape (`\n`, `\e`, `\x07`, `\u202e`); backslashes stay. */
export function escapeControl(text: string): string {
  return text.replace(INVISIBLE, ch => {
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * Every field of a tool call's input as `key: value` lines, escaped, for approval prompts. A `command` is
 * always whole; other values (a file's new content, say) are cut at `maxOther` characters when given.
 */
export function approvalInputLines(input: unknown, maxOther?: number): string[] {
  const valueText = (key: string, value: unknown) => {
    const text = escapeControl(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value));
    if (key === 'command' || maxOther === undefined || text.length <= maxOther) return text;
    return `${text.slice(0, maxOther)}… (${text.length - maxOther} more characters)`;
  };
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    return Object.entries(input as Record<string, unknown>).map(([key, value]) => `${escapeControl(key)}: ${valueText(key, value)}`);
  }
  return input === undefined ? [] : [`input: ${valueText('input', input)}`];
}
