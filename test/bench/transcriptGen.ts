// Builds realistic parent transcripts through the real session code (createSession + Session.commit):
// a startup entry, then turns of prompt → (response with text and tool_use → tool_results)×k → final
// response, with parallel calls now and then and tool results of a few hundred characters.
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ContentBlock, EntryKind, Message, ToolUseBlock } from '../../src/common/transcript';
import { buildRequestBody } from '../../src/runtime/agent/request';
import { fingerprint } from '../../src/runtime/cache/fingerprint';
import { parentRequestEnd } from '../../src/runtime/fork/history/createFork';
import { createSession } from '../../src/runtime/session/createSession';
import type { Session } from '../../src/runtime/session/session';
import type { SessionStore } from '../../src/runtime/session/sessionStore';

export const BENCH_SETTINGS = { model: 'claude-sonnet-5-5', maxTokens: 16000 };

export interface ParentTarget {
  /** Exact number of entries, the startup entry included. */
  entries?: number;
  /** Or: keep adding whole turns until the JSONL file has at least this many bytes. */
  bytes?: number;
  seed?: number;
}

export interface BuiltParent {
  session: Session;
  entries: number;
  realTurns: number;
  bytes: number;
  buildSeconds: number;
}

const WORDS = (
  'the fork session entry cache prefix request response tool result parent child window turn store ' +
  'runtime client socket token stream model message header bootstrap select close directive boundary ' +
  'config test file path build error value index range buffer queue state event handler update check ' +
  'should would could before after because while during then also only every each other some most'
).split(' ');
const IDENTS = ['session', 'entries', 'store', 'request', 'fork', 'cache', 'result', 'options', 'header', 'index', 'buffer', 'queue'];
const FILES = ['src/runtime/fork/select.ts', 'src/runtime/agent/loop.ts', 'src/host/chat/participant.ts', 'src/common/transcript.ts', 'test/unit/tools.grep.test.ts', 'README.md'];
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Deterministic PRNG (mulberry32), so every run builds the same transcripts. */
export class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

export function prose(rng: Rng, minChars: number, maxChars: number): string {
  const target = rng.int(minChars, maxChars);
  const words: string[] = [];
  let length = 0;
  while (length < target) {
    const word = rng.pick(WORDS);
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, target).trimEnd() + '.';
}

/** Looks like read_file / grep output: numbered code lines. */
export function codeListing(rng: Rng, minChars: number, maxChars: number, firstLine = rng.int(1, 400)): string {
  const target = rng.int(minChars, maxChars);
  const lines: string[] = [];
  let length = 0;
  for (let n = firstLine; length < target; n++) {
    const code = `  const ${rng.pick(IDENTS)} = ${rng.pick(IDENTS)}.${rng.pick(WORDS)}(${rng.pick(IDENTS)}, ${rng.int(0, 99)});`;
    const line = `${String(n).padStart(6)}\t${code}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function toolUse(rng: Rng): ToolUseBlock {
  let id = 'toolu_01';
  for (let i = 0; i < 22; i++) id += ID_CHARS[rng.int(0, ID_CHARS.length - 1)];
  const kind = rng.int(0, 3);
  if (kind === 0) return { type: 'tool_use', id, name: 'grep', input: { pattern: rng.pick(IDENTS), path: 'src' } };
  if (kind === 1) return { type: 'tool_use', id, name: 'bash', input: { command: `npm test -- --grep ${rng.pick(WORDS)}` } };
  return { type: 'tool_use', id, name: 'read_file', input: { path: rng.pick(FILES), offset: rng.int(1, 300), limit: 40 } };
}

type Step = { kind: EntryKind; message: Message };

/** One real user turn with `rounds` tool rounds; `answered`: ends with a final text response. */
function turnSteps(rng: Rng, rounds: number, answered: boolean): Step[] {
  const steps: Step[] = [{ kind: 'prompt', message: { role: 'user', content: [{ type: 'text', text: prose(rng, 60, 250) }] } }];
  for (let r = 0; r < rounds; r++) {
    const calls = Array.from({ length: rng.next() < 0.25 ? 2 : 1 }, () => toolUse(rng));
    steps.push({ kind: 'response', message: { role: 'assistant', content: [{ type: 'text', text: prose(rng, 80, 250) }, ...calls] } });
    const results: ContentBlock[] = calls.map(call => ({ type: 'tool_result', tool_use_id: call.id, content: codeListing(rng, 200, 600) }));
    steps.push({ kind: 'tool_results', message: { role: 'user', content: results } });
  }
  if (answered) steps.push({ kind: 'response', message: { role: 'assistant', content: [{ type: 'text', text: prose(rng, 200, 700) }] } });
  return steps;
}

const USAGE = { input_tokens: 12, output_tokens: 180, cache_read_input_tokens: 30_000, cache_creation_input_tokens: 400 };

export async function buildParent(store: SessionStore, root: string, target: ParentTarget): Promise<BuiltParent> {
  const started = performance.now();
  const rng = new Rng(target.seed ?? 1);
  const session = await createSession(store, { root, title: 'bench parent', settings: BENCH_SETTINGS });
  const file = store.fileOf(session.id);
  let entries = 1;
  let realTurns = 0;
  for (;;) {
    let steps: Step[];
    const rounds = rng.int(1, 3);
    if (target.entries !== undefined) {
      const left = target.entries - entries;
      if (left <= 0) break;
      // The last turn is cut to fit: odd leftovers end mid-turn (after tool results), as a busy parent would.
      steps = left >= 2 + 2 * rounds ? turnSteps(rng, rounds, true) : turnSteps(rng, Math.floor((left - 1) / 2), left % 2 === 0);
    } else {
      if (fs.statSync(file).size >= (target.bytes ?? 0)) break;
      steps = turnSteps(rng, rounds, true);
    }
    for (const step of steps) {
      const stopReason = step.message.content.some(b => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      session.commit(step.kind, step.message, step.kind === 'response' ? { usage: USAGE, stopReason } : {});
    }
    entries += steps.length;
    realTurns++;
  }
  return { session, entries, realTurns, bytes: fs.statSync(file).size, buildSeconds: (performance.now() - started) / 1000 };
}

/**
 * The request record the parent's latest answer left (a chat writes one per answer; the cache explorer
 * compares a fork's first request with it, and the fork's record is stored as a difference from it).
 */
export function recordLatestRequest(session: Session): void {
  const entries = session.entries();
  const end = parentRequestEnd(entries);
  if (end < 0) return;
  const sent = entries.slice(0, end + 1);
  session.recordRequest(fingerprint(buildRequestBody(session.header, sent), Date.now(), USAGE, sent[end].id));
}
