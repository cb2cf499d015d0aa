// macOS: the same policy as bwrapArgv.ts written as a Seatbelt profile for `sandbox-exec -p`. Generated and
// unit-checked here, never run: this project's machines are Linux, so the profile has not met a real Mac
// (SECURITY.md says so). Network is all or nothing on this path: allowNetwork is not offered on macOS yet.
import type { DenyEntry } from './bwrapArgv';

export interface SeatbeltOptions {
  writable: string[];
  protect: string[];
  deny: DenyEntry[];
}

/** A Seatbelt string literal: backslashes and quotes escaped, no control characters. */
function literal(text: string): string {
  if (/[\u0000-\u001f]/.test(text)) throw new Error(`path with a control character cannot go into a Seatbelt profile: ${JSON.stringify(text)}`);
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(o: SeatbeltOptions): string {
  const lines = ['(version 1)', '(allow default)', '(deny network*)', '(allow network* (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))'];
  // Last matching rule wins: deny every write, allow the writable roots and the per-user temp folders, re-deny the protected files.
  lines.push('(deny file-write*)');
  const allowed = [...o.writable.map(dir => `(subpath ${literal(dir)})`), '(subpath "/private/tmp")', '(subpath "/private/var/folders")', '(literal "/dev/null")', '(literal "/dev/tty")'];
  lines.push(`(allow file-write* ${allowed.join(' ')})`);
  if (o.protect.length) lines.push(`(deny file-write* ${o.protect.map(p => `(literal ${literal(p)})`).join(' ')})`);
  if (o.deny.length) {
    const matchers = o.deny.map(entry => (entry.kind === 'dir' ? `(subpath ${literal(entry.path)})` : `(literal ${literal(entry.path)})`));
    lines.push(`(deny file-read* file-write* ${matchers.join(' ')})`);
  }
  return `${lines.join('\n')}\n`;
}
