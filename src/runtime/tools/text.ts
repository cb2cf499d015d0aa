// Text helpers shared by the tools: binary sniffing and cutting over-long lines.

/** Bytes sniffed for a NUL to call a file binary (the same heuristic git and ripgrep use). */
export const BINARY_SNIFF_BYTES = 8192;

export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}

/** Shortens one long line (minified code) so a single match cannot flood the context. */
export function truncateLine(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}… [line truncated, ${line.length} chars]` : line;
}
