// What every conformance case needs: the real runtime process over JSON-RPC (test/runtime/harness),
// the real SDK against the fake API, forks started and awaited over the protocol, and readers for the
// requests the fake actually received.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkList, forkSend, forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams } from '../../src/common/protocol/forks';
import type { ForkSummary } from '../../src/common/forks';
import type { Entry } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { startHarness } from '../runtime/harness';
import type { Harness } from '../runtime/harness';

export type { Harness };

export function startPeerHarness(config: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  return startHarness({ fake: { minCacheTokens: 256, ...config.fake }, config: config.config, env: config.env });
}

/** The harness with the workspace file the cases read: notes.md, holding the secret word "pelican". */
export async function startPeerHarnessWithNotes(): Promise<Harness> {
  const h = await startPeerHarness();
  fs.writeFileSync(path.join(h.root, 'notes.md'), 'The secret word is pelican.\n');
  return h;
}

/** A word unique to one case, so its requests can be told from every other case's. */
export function tag(): string {
  return randomUUID().slice(0, 8);
}

export const isForkRequest = (r: ReceivedRequest): boolean => r.rawBody.includes('<fork-boilerplate>');

export function startFork(h: Harness, params: Partial<ForkStartParams> & { sessionId: string; directive: string }): Promise<ForkSummary> {
  return sendRequest(h.client.endpoint, forkStart, { isolation: 'shared', ...params });
}

export function waitFork(h: Harness, forkId: string): Promise<ForkSummary> {
  return sendRequest(h.client.endpoint, forkWait, { forkId });
}

export function continueFork(h: Harness, forkId: string, message: string): Promise<ForkSummary> {
  return sendRequest(h.client.endpoint, forkSend, { forkId, message });
}

export async function forksOf(h: Harness, parentSessionId: string): Promise<ForkSummary[]> {
  return (await sendRequest(h.client.endpoint, forkList, { parentSessionId })).forks;
}

/** Requests of the fork whose directive is `directive`, in arrival order. */
export function forkRequests(h: Harness, directive: string): ReceivedRequest[] {
  return h.fake.requests.filter(r => isForkRequest(r) && r.rawBody.includes(`DIRECTIVE: ${directive}`));
}

export function firstForkRequest(h: Harness, directive: string): ReceivedRequest {
  const found = forkRequests(h, directive)[0];
  if (!found) throw new Error(`no request of the fork "${directive}" reached the fake`);
  return found;
}

/** Parent requests that carry `marker` (a word of one of its prompts), in arrival order. */
export function parentRequests(h: Harness, marker: string): ReceivedRequest[] {
  return h.fake.requests.filter(r => !isForkRequest(r) && r.rawBody.includes(marker));
}

interface WireBlock { type: string; text?: string; content?: unknown; tool_use_id?: string; name?: string; is_error?: boolean }
interface WireMessage { role: string; content: WireBlock[] }

export function messagesOf(r: ReceivedRequest): WireMessage[] {
  return r.body.messages as WireMessage[];
}

/** Every text block of the request's messages, in order (tool results and calls left out). */
export function textsOf(r: ReceivedRequest): string[] {
  return messagesOf(r).flatMap(m => m.content.filter(b => b.type === 'text').map(b => b.text ?? ''));
}

/** Does any text block of the request equal `text` exactly? */
export function hasText(r: ReceivedRequest, text: string): boolean {
  return textsOf(r).includes(text);
}

export function lastMessage(r: ReceivedRequest): WireMessage {
  const messages = messagesOf(r);
  return messages[messages.length - 1];
}

/** The messages without cache_control: where breakpoints sit is the request rule's business, not the history's. */
export function withoutBreakpoints(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v)));
}

export function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }] };
}

export function call(...calls: [name: string, input: unknown][]): ScriptedTurn {
  return { content: calls.map(([name, input]) => ({ type: 'tool_use' as const, name, input })) };
}

/** Text of the last user-role text block of a request (the newest prompt or the directive). */
export function lastUserText(r: ReceivedRequest): string {
  const texts = lastMessage(r).content.filter(b => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}

export function entryWithText(entries: readonly Entry[], text: string): Entry {
  const found = entries.find(e => e.message.content.some(b => b.type === 'text' && b.text === text));
  if (!found) throw new Error(`no entry holds the text ${JSON.stringify(text)}`);
  return found;
}

/** Resolves once `predicate` holds for a request the fake receives (or already received). */
export function requestArrives(h: Harness, predicate: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest> {
  const seen = h.fake.requests.find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise(resolve => {
    const off = h.fake.onRequest(r => {
      if (!predicate(r)) return;
      off();
      resolve(r);
    });
  });
}

/** A promise with its resolver, for gating a scripted turn on the test's progress. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>(resolve => (open = resolve));
  return { opened, open };
}
