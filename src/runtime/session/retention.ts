// Deleting sessions and the history nobody references any more. References are rebuilt from
// the files every time, never kept as counters that a crash could leave wrong: a v1 segment file is kept
// while the session that sealed it exists (live or retired) or a fork's bootstrap reaches it (its chain from
// the named head back to the lowest position it takes); a retired chat transcript (its v2 segments are byte
// ranges of it) is kept while a session's header names it as parent. Deletion removes the session file first, then sweeps: a crash in
// between leaves only garbage for the next sweep, never loses a referenced segment.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readOpenFile } from './fileRead';
import type { ForkBootstrap, SessionRecord } from './records';
import type { SessionStore } from './sessionStore';

/** A v2 bootstrap line starts with this (history is written first in the record). */
const REFS_PREFIX = '{"type":"bootstrap","bootstrap":{"history":';
/** Bootstraps by reference stay far below this; longer second lines are 0.1.0 bootstraps (no references). */
const MAX_REFS_LINE = 1024 * 1024;

export interface Sweep { removed: string[]; kept: number; freedBytes: number }

/** Removes every segment that no session owns and no bootstrap reaches. */
export function collectGarbage(store: SessionStore): Sweep {
  const sweep: Sweep = { removed: [], kept: 0, freedBytes: 0 };
  const parents = new Set(store.listHeaders().flatMap(h => (h.parent ? [h.parent.sessionId] : [])));
  for (const id of store.segments.retired()) {
    if (parents.has(id)) continue;
    sweep.freedBytes += sizeOf(store.segments.transcriptOf(id));
    store.segments.removeRetired(id);
    sweep.removed.push(id);
  }
  const sessions = new Set([...store.ids(), ...store.segments.retired()]);
  const reached = new Set<string>();
  for (const id of sessions) {
    const refs = bootstrapRefsOf(path.join(store.sessionsDir, `${id}.jsonl`));
    if (!refs?.head) continue;
    const ranges = refs.parts.filter(part => !('entries' in part)) as { from: number }[];
    if (ranges.length === 0) continue;
    const lowest = Math.min(...ranges.map(r => r.from));
    for (const hash of store.segments.chainOf(refs.head, lowest)) reached.add(hash);
  }
  for (const hash of store.segments.list()) {
    if (reached.has(hash)) {
      sweep.kept++;
      continue;
    }
    const header = store.segments.headerOf(hash);
    // An unreadable header: keep it (a person may still recover it); only clear garbage is removed.
    if (!header || sessions.has(header.owner)) {
      sweep.kept++;
      continue;
    }
    sweep.freedBytes += sizeOf(store.segments.fileOf(hash));
    store.segments.remove(hash);
    sweep.removed.push(hash);
  }
  return sweep;
}

/** The history references of a fork's bootstrap (its first two lines only), or undefined. */
export function bootstrapRefsOf(file: string): ForkBootstrap['history'] | undefined {
  return readOpenFile(file, fd => {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    let newlines = 0;
    let lineStart = -1;
    let total = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) return undefined;
      const chunk = Buffer.from(buffer.subarray(0, read));
      chunks.push(chunk);
      for (let i = 0; i < read; i++) {
        if (chunk[i] !== 10) continue;
        newlines++;
        if (newlines === 1) {
          lineStart = total + i + 1;
        } else {
          const all = Buffer.concat(chunks);
          const line = all.subarray(lineStart, total + i).toString('utf8');
          if (!line.startsWith(REFS_PREFIX)) return undefined;
          const record = JSON.parse(line) as SessionRecord;
          return record.type === 'bootstrap' ? record.bootstrap.history : undefined;
        }
      }
      total += read;
      if (lineStart >= 0 && total - lineStart >= REFS_PREFIX.length) {
        const start = Buffer.concat(chunks).subarray(lineStart, lineStart + REFS_PREFIX.length).toString('utf8');
        if (start !== REFS_PREFIX || total - lineStart > MAX_REFS_LINE) return undefined;
      }
    }
  });
}

/** Session ids whose files were last written more than `days` days ago. */
export function expiredSessions(store: SessionStore, days: number, now = Date.now()): string[] {
  if (!(days > 0)) return [];
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  return store.ids().filter(id => {
    try {
      return fs.statSync(store.fileOf(id)).mtimeMs < cutoff;
    } catch {
      return false;
    }
  });
}

export interface StoreUsage { bytes: number; sessionBytes: number; segmentBytes: number; sessions: number; segments: number }

/** What the store takes on disk: session files plus history kept apart from them (v1 segment files, retired chat transcripts). */
export function storeUsage(store: SessionStore): StoreUsage {
  const ids = store.ids();
  const hashes = store.segments.list();
  const retired = store.segments.retired();
  const sessionBytes = ids.reduce((n, id) => n + sizeOf(store.fileOf(id)), 0);
  const segmentBytes = hashes.reduce((n, hash) => n + sizeOf(store.segments.fileOf(hash)), 0) + retired.reduce((n, id) => n + sizeOf(store.segments.transcriptOf(id)), 0);
  return { bytes: sessionBytes + segmentBytes, sessionBytes, segmentBytes, sessions: ids.length, segments: hashes.length + retired.length };
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
