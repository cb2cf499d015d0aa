// What a store holds of sealed history, read straight from its files (never through the code under test):
// v2 seal records inline in chat transcripts, v1 segment files, retired chat transcripts.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SealLine { hash: string; count: number; segment?: { v: 2; prev: string | null; owner: string; from: number; to: number; sha256: string } }

/** The seal records of a transcript, in file order. */
export function sealLines(file: string): SealLine[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(line => line.startsWith('{"type":"seal"')).map(line => JSON.parse(line) as SealLine);
}

/** v1 segment files (copies), by hash. */
export function segmentFiles(storeDir: string): string[] {
  const dir = path.join(storeDir, 'segments');
  return fs.readdirSync(dir).filter(n => n.endsWith('.seg')).map(n => n.slice(0, -4)).sort();
}

/** Ids of retired chat transcripts (deleted chats whose forks reference them). */
export function retiredChats(storeDir: string): string[] {
  const dir = path.join(storeDir, 'segments', 'retired');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter(n => n.endsWith('.jsonl')).map(n => n.slice(0, -6)).sort() : [];
}

export const retiredFile = (storeDir: string, id: string) => path.join(storeDir, 'segments', 'retired', `${id}.jsonl`);
