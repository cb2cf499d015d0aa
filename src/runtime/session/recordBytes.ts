// A record's line, byte for byte what JSON.stringify(record) + '\n' writes, with the entries a fork's
// bootstrap writes in full — the parent's unsealed tail, the same few dozen entries for every sibling
// started from one point — encoded once per entry and reused. Fifty siblings of a 1,000-entry chat each
// encoded the same 30 KB tail on the runtime's only thread: three quarters of a 40 KB bootstrap
// (docs/benchmarks.md, "Fifty siblings: one encoding per parent"). Entries are immutable (frozen when
// committed, ids unique), so an entry's bytes never change.
import type { Entry } from '../../common/transcript';
import type { HistoryPart, HistoryRefs, SessionRecord } from './records';

/** Encoded entries, by the entry's identity: siblings name the same entry objects of their parent. */
const entryJson = new WeakMap<Entry, Buffer>();

/** The record's line, newline included. */
export function recordLine(record: SessionRecord): Buffer {
  return Buffer.concat(recordParts(record));
}

/** The record's line in pieces, the cached ones shared (never change them): written with one writev. */
export function recordParts(record: SessionRecord): Buffer[] {
  if (record.type !== 'bootstrap' || !record.bootstrap.history) return [Buffer.from(JSON.stringify(record) + '\n', 'utf8')];
  const parts: Buffer[] = [];
  let text = '{"type":"bootstrap","bootstrap":{';
  let first = true;
  const bootstrap = record.bootstrap as unknown as Record<string, unknown>;
  for (const key of Object.keys(bootstrap)) {
    const value = bootstrap[key];
    // As JSON.stringify: a property whose value is undefined (or a function) is left out.
    if (value === undefined || typeof value === 'function') continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (key !== 'history') {
      text += JSON.stringify(value);
      continue;
    }
    const history = value as HistoryRefs;
    // Only the shape this writer knows is taken apart; anything else is encoded as it is.
    if (!isRefs(history)) {
      text += JSON.stringify(value);
      continue;
    }
    text += `{"head":${JSON.stringify(history.head)},"parts":[`;
    history.parts.forEach((part, at) => {
      if (at > 0) text += ',';
      if (!isInline(part)) {
        text += JSON.stringify(part);
        return;
      }
      text += '{"entries":[';
      part.entries.forEach((entry, i) => {
        parts.push(Buffer.from(i > 0 ? text + ',' : text, 'utf8'), entryBytes(entry));
        text = '';
      });
      text += ']}';
    });
    text += ']}';
  }
  parts.push(Buffer.from(text + '}}\n', 'utf8'));
  return parts;
}

function entryBytes(entry: Entry): Buffer {
  let bytes = entryJson.get(entry);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(entry), 'utf8');
    // Only frozen entries are kept: one that could still change is encoded anew each time.
    if (Object.isFrozen(entry)) entryJson.set(entry, bytes);
  }
  return bytes;
}

function isRefs(history: HistoryRefs): boolean {
  const keys = Object.keys(history);
  return keys.length === 2 && keys[0] === 'head' && keys[1] === 'parts' && (history.head === null || typeof history.head === 'string') && Array.isArray(history.parts);
}

function isInline(part: HistoryPart): part is { entries: Entry[] } {
  const keys = Object.keys(part);
  return keys.length === 1 && keys[0] === 'entries' && Array.isArray((part as { entries?: unknown }).entries);
}
