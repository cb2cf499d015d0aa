// git's tree and blob objects, read and written by the runtime itself (git's object format, the loose
// object layout of gitrepository-layout(5)): the index-free checkpoint (treeTurn.ts) builds the trees
// of the folders a turn changed from the previous checkpoint's, so no git process has to read an index
// that grows with the repository.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deflateSync } from 'node:zlib';
import { bytesOf, nameOf } from './pathBytes';

export const TREE_MODE = '40000';
export const GITLINK_MODE = '160000';
export const SYMLINK_MODE = '120000';

export interface TreeEntry { mode: string; id: string }

export class NotRepresentable extends Error {}

const SLASH = Buffer.from('/');

/** A tree object's entries by name; a name that is not UTF-8 keeps its bytes (pathBytes.ts). */
export function parseTree(content: Buffer): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(32, at);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new NotRepresentable('damaged tree object');
    const mode = content.subarray(at, space).toString();
    const name = nameOf(content.subarray(space + 1, nul));
    entries.set(name, { mode, id: content.subarray(nul + 1, nul + 21).toString('hex') });
    at = nul + 21;
  }
  return entries;
}

/**
 * A tree object's content in git's order: names compared as bytes, a folder's as if it ended in `/`
 * (base_name_compare in git's tree.c), so `a.b` comes before the folder `a` and after the file `a`.
 */
export function serializeTree(entries: ReadonlyMap<string, TreeEntry>): Buffer {
  const sorted = [...entries].map(([name, entry]) => {
    const bytes = bytesOf(name);
    return { key: entry.mode === TREE_MODE ? Buffer.concat([bytes, SLASH]) : bytes, bytes, entry };
  });
  sorted.sort((a, b) => Buffer.compare(a.key, b.key));
  // One buffer for the whole tree (a folder of hundreds of files is rewritten at each of its changes).
  let size = 0;
  for (const { bytes, entry } of sorted) size += entry.mode.length + 1 + bytes.length + 1 + 20;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { bytes, entry } of sorted) {
    at += out.write(`${entry.mode} `, at, 'latin1');
    at += bytes.copy(out, at);
    out[at++] = 0;
    at += out.write(entry.id, at, 'hex');
  }
  return out;
}

/** The id of an object of `type` with `content` (SHA-1, the shadow's object format). */
export function objectId(type: 'blob' | 'tree', content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/**
 * Writes the object into `<gitDir>/objects` as a loose object (zlib of header + content), unless it is
 * there already; private like the rest of the store. Returns its id. Synchronous on purpose: a turn
 * writes tens of small files, and each asynchronous call costs a thread-pool round trip (and a missing
 * file an Error with its stack) — several times the write itself (docs/benchmarks.md).
 */
export function writeObject(gitDir: string, type: 'blob' | 'tree', content: Buffer, madeDirs?: Set<string>): string {
  const id = objectId(type, content);
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (fs.existsSync(file)) return id;
  if (!madeDirs?.has(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    madeDirs?.add(dir);
  }
  const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(temp, deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]), { level: 1 }), { mode: 0o400 });
  // A rename (git's core.createObject=rename): one metadata operation fewer than link + unlink, and an
  // object written meanwhile by another runtime has the same content, so replacing it loses nothing.
  fs.renameSync(temp, file);
  return id;
}
