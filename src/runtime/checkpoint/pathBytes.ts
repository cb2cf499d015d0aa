// File names as the checkpoint code carries them: JS strings that keep every byte. Linux allows any
// bytes but `/` and NUL in a name, and git records them as they are; a name that is not UTF-8 decoded
// the usual way turns its bad bytes into U+FFFD and no longer names the file. Here each such byte
// (0x80–0xFF outside a valid UTF-8 sequence) becomes the lone surrogate U+DC80–U+DCFF — Python's
// "surrogateescape" (PEP 383) — which valid UTF-8 never decodes to, so names round-trip: decoded at
// every place bytes come in (git's `-z` output, fs.watch, readdir, tree objects) and encoded at every
// place they go out (git's stdin, fs calls), docs/design.md "Checkpoints". A name that is UTF-8 is the
// plain string it always was.

/** Lone surrogates that stand for raw bytes. */
const ESCAPED = /[\udc80-\udcff]/;

/** The name `bytes` spell; bytes that are not UTF-8 as U+DC80–U+DCFF. */
export function nameOf(bytes: Buffer): string {
  const plain = bytes.toString('utf8');
  if (!plain.includes('\ufffd')) return plain;
  let out = '';
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at];
    const size = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (size === 1) {
      out += String.fromCharCode(lead);
      at++;
      continue;
    }
    const sequence = bytes.subarray(at, at + size);
    const char = size > 0 && sequence.length === size ? sequence.toString('utf8') : '';
    // Valid when it decodes and encodes back to the same bytes (no overlong form, no surrogate, in range).
    if (char !== '' && Buffer.from(char, 'utf8').equals(sequence)) {
      out += char;
      at += size;
    } else {
      out += String.fromCharCode(0xdc00 + lead);
      at++;
    }
  }
  return out;
}

/** The bytes of a name made by `nameOf` (a plain string: its UTF-8). */
export function bytesOf(name: string): Buffer {
  if (!ESCAPED.test(name)) return Buffer.from(name, 'utf8');
  const parts: Buffer[] = [];
  let text = '';
  for (const char of name) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xdc80 && code <= 0xdcff) {
      parts.push(Buffer.from(text, 'utf8'), Buffer.from([code - 0xdc00]));
      text = '';
    } else {
      text += char;
    }
  }
  parts.push(Buffer.from(text, 'utf8'));
  return Buffer.concat(parts);
}

/** Whether a name holds bytes that are not UTF-8 (it cannot go on a command line as it is). */
export function hasRawBytes(name: string): boolean {
  return ESCAPED.test(name);
}

/** A path for the fs calls: the string itself when it is UTF-8, else its bytes. */
export function fsPath(file: string): string | Buffer {
  return ESCAPED.test(file) ? bytesOf(file) : file;
}

/** NUL-ended names as git's `--stdin -z` readers take them. */
export function nulList(names: readonly string[]): Buffer {
  const joined = names.join('\0') + '\0';
  return ESCAPED.test(joined) ? bytesOf(joined) : Buffer.from(joined, 'utf8');
}

/**
 * A name git never records, whatever the file system: `.git` in any case (verify_dotfile in git's
 * read-cache.c; `update-index` says "Ignoring path", `add -A` fails). On Linux `.GIT` is an ordinary
 * folder, but a tree naming it is one git refuses to read back (read-tree, checkout): never written.
 */
export function isDotGit(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === '.git';
}

/** Characters HFS+ ignores in names (git's is_hfs_dotgit), which core.protectHFS looks through. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * A name git refuses or not by core.protectNTFS (on by default) and core.protectHFS: `.git` with
 * trailing dots or spaces or an NTFS stream, its short name `git~1`, `.git` with HFS-ignored characters.
 * Whoever meets one leaves it to `update-index`, which reads those settings.
 */
export function mayBeDotGit(name: string): boolean {
  const bare = name.replace(HFS_IGNORED, '').toLowerCase();
  return /^(\.git|git~1)[. ]*(:|$)/.test(bare) && !isDotGit(name);
}
