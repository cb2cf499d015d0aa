// What VS Code has saved of the Chat view's sessions, read back as a reloaded window will restore them.
// The workbench writes a session to <user-data>/User/workspaceStorage/<workspace id>/chatSessions/<session
// id>.jsonl (a log of edits: kind 0 the whole session, 1 a value set at path `k`, 2 an array at `k` cut to
// `i` and extended by `v`, 3 a value removed), or <id>.json whole. It saves only when its storage flushes,
// every few seconds (BrowserStorageService's 5 s flush interval in VS Code 1.139's web workbench), and skips
// the save at shutdown (ChatSessionStore: `shuttingDown`), so a window reloaded soon after an answer
// restores the chat as it was some seconds earlier: mid-stream, or without the last answer. A check that
// reloads after chatting waits here first until the last answer is saved complete.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SavedRequest {
  /** The request as typed, e.g. "@fork hello". */
  message: string;
  /** The answer was over when this was saved (VS Code's response model state Complete). */
  complete: boolean;
  /** The answer's markdown and progress text, concatenated. */
  text: string;
}

export interface SavedChat {
  file: string;
  requests: SavedRequest[];
}

/** Every chat session saved under `userDataDir` (a file caught mid-write is read again on the next call). */
export function savedChats(userDataDir: string): SavedChat[] {
  const chats: SavedChat[] = [];
  const storage = path.join(userDataDir, 'User', 'workspaceStorage');
  for (const workspace of readDir(storage)) {
    const dir = path.join(storage, workspace, 'chatSessions');
    for (const name of readDir(dir)) {
      if (!name.endsWith('.jsonl') && !name.endsWith('.json')) continue;
      const file = path.join(dir, name);
      const session = readSession(file);
      if (session) chats.push({ file, requests: requestsOf(session) });
    }
  }
  return chats;
}

/**
 * Resolves once a saved chat's last request is `message` and its answer was saved complete; rejects after
 * `timeoutMs` saying what was saved. A bounded poll of the files: the folders appear only with the first
 * save, and the workbench rewrites or appends to them in place.
 */
export async function waitForChatSaved(userDataDir: string, message: string, timeoutMs = 30_000): Promise<SavedChat> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const chats = savedChats(userDataDir);
    const saved = chats.find(chat => {
      const last = chat.requests.at(-1);
      return last !== undefined && sameMessage(last.message, message) && last.complete;
    });
    if (saved) return saved;
    if (Date.now() > deadline) {
      const what = chats.map(chat => {
        const last = chat.requests.at(-1);
        return `${path.basename(chat.file)}: ${chat.requests.length} requests${last ? `, the last "${last.message}" ${last.complete ? 'complete' : 'not complete'}` : ''}`;
      });
      throw new Error(`VS Code did not save the chat with "${message}" answered within ${timeoutMs / 1000} s (saved: ${what.join('; ') || 'no chat'})`);
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

function sameMessage(saved: string, sent: string): boolean {
  const normal = (text: string) => text.replace(/\s+/g, ' ').trim();
  return normal(saved) === normal(sent);
}

function readDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return []; // not saved yet
  }
}

type Json = Record<string, unknown>;

function readSession(file: string): Json | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    if (file.endsWith('.json')) return JSON.parse(raw) as Json;
    let session: Json | undefined;
    for (const line of raw.split('\n')) {
      if (!line.trim()) continue;
      const entry = JSON.parse(line) as { kind: number; k?: (string | number)[]; v?: unknown; i?: number };
      if (entry.kind === 0) session = entry.v as Json;
      else if (session) apply(session, entry);
    }
    return session;
  } catch {
    return undefined; // a line caught mid-write
  }
}

/** One log entry, applied as the workbench's own reader does (ChatSessionStore's log replay). */
function apply(session: Json, entry: { kind: number; k?: (string | number)[]; v?: unknown; i?: number }): void {
  const keys = entry.k ?? [];
  if (keys.length === 0) return;
  let parent = session as Record<string | number, unknown>;
  for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = keys[keys.length - 1];
  if (entry.kind === 1) parent[last] = entry.v;
  else if (entry.kind === 3) parent[last] = undefined;
  else if (entry.kind === 2) {
    const array = (parent[last] as unknown[] | undefined) ?? [];
    if (entry.i !== undefined) array.length = entry.i;
    if (Array.isArray(entry.v)) array.push(...(entry.v as unknown[]));
    parent[last] = array;
  }
}

function requestsOf(session: Json): SavedRequest[] {
  const requests = (session.requests as Json[] | undefined) ?? [];
  return requests.map(request => ({
    message: ((request.message as { text?: string } | undefined)?.text ?? '').trim(),
    complete: (request.modelState as { value?: number } | undefined)?.value === 1,
    text: textOf(request.response),
  }));
}

/** Every `value` string of the response's parts (markdown), in order. */
function textOf(node: unknown): string {
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (!node || typeof node !== 'object') return '';
  const record = node as Json;
  if (typeof record.value === 'string') return record.value;
  return Object.values(record).map(textOf).join('');
}
