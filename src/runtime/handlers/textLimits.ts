// Caps on what a client may send as one prompt, directive or message: a 64 MB prompt
// once grew the runtime to 568 MB. Refused with the size and the limit before anything is stored.
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';

/** 1 MiB of UTF-8: several times any model's context window in text. */
export const MAX_TEXT_BYTES = 1024 * 1024;

export function checkTextSize(what: string, text: string): void {
  // Cheap bound first: a UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= MAX_TEXT_BYTES) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_TEXT_BYTES) return;
  throw new ResponseError(ErrorCodes.InvalidParams,
    `The ${what} is ${formatBytes(bytes)}; the limit is ${formatBytes(MAX_TEXT_BYTES)}. ` +
      'Put large content in a file in the workspace and refer to it instead.');
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
