// Section 3: the first fork request's cache-read share, through the real runtime process, the real SDK
// and the fake server's prompt-cache simulation. A parent of ~30,000 input tokens (turns whose tool
// results read big files) is forked once, then three siblings are forked from the same point, staggered:
// the first sibling's response starts before the other two send (docs/design.md §4.5).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheReadShare } from '../../src/common/transcript';
import type { Usage } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { countInputTokens } from '../fakes/cache';
import { startRuntimeRun } from './runtimeDriver';
import type { RuntimeRun } from './runtimeDriver';
import { Rng, codeListing, prose } from './transcriptGen';
import type { Row, Section } from './types';
import { pct, thousands } from './stats';

const PARENT_TOKENS = 30_000;
const FILE_CHARS = 18_000;
const MAX_PARENT_TURNS = 12;
const TARGET_SHARE = 0.9;
const BOILERPLATE = '<fork-boilerplate>';

interface ForkRequest { label: string; directive: string; request: ReceivedRequest; firstUsage?: Usage }

const say = (text: string): ScriptedTurn => ({ content: [{ type: 'text', text }] });
const readCall = (file: string): ScriptedTurn => ({ content: [{ type: 'text', text: `Reading ${file}.` }, { type: 'tool_use', name: 'read_file', input: { path: file } }] });

export const cacheShareSection: Section = {
  id: '3',
  title: 'First fork request\'s cache-read share (real runtime + SDK, fake server cache simulation)',
  async run(ctx) {
    const parentScript: ScriptedTurn[] = [];
    const run = await startRuntimeRun(ctx, r => (r.rawBody.includes(BOILERPLATE) ? say('Scope: bench.\nResult: done.') : parentScript.shift() ?? say('(nothing scripted)')));
    try {
      const parent = await buildParent(run, parentScript);
      ctx.log(`  parent: ${parent.turns} turns, latest request ${thousands(parent.tokens)} input tokens`);
      const forks: ForkRequest[] = [];
      forks.push(await forkOnce(run, parent.sessionId, 'first fork', 'Summarise what the files have in common.'));
      forks.push(...(await staggeredSiblings(run, parent.sessionId)));
      return toResult(parent, forks);
    } finally {
      await run.dispose();
    }
  },
};

export interface Parent { sessionId: string; turns: number; tokens: number; request: ReceivedRequest }

export async function buildParent(run: RuntimeRun, script: ScriptedTurn[]): Promise<Parent> {
  const rng = new Rng(30);
  let sessionId: string | undefined;
  for (let turn = 1; turn <= MAX_PARENT_TURNS; turn++) {
    const file = `module-${turn}.txt`;
    // read_file numbers the lines itself: the file holds the bare code.
    fs.writeFileSync(path.join(run.root, file), codeListing(rng, FILE_CHARS, FILE_CHARS).replace(/^ *\d+\t/gm, '') + '\n');
    script.push(readCall(file), say(prose(rng, 400, 800)));
    const result = await run.send(`Read ${file} and tell me what it does.`, sessionId);
    if (result.error) throw new Error(`parent turn ${turn} failed: ${result.error.message}`);
    sessionId = result.sessionId;
    const latest = run.fake.requests.filter(r => !r.rawBody.includes(BOILERPLATE)).at(-1)!;
    const tokens = countInputTokens(latest.body);
    if (tokens >= PARENT_TOKENS * 0.95) return { sessionId, turns: turn, tokens, request: latest };
  }
  throw new Error(`the parent did not reach ${PARENT_TOKENS} tokens in ${MAX_PARENT_TURNS} turns`);
}

function requestOf(run: RuntimeRun, directive: string): ReceivedRequest {
  const found = run.fake.requests.find(r => r.rawBody.includes(BOILERPLATE) && r.rawBody.includes(`DIRECTIVE: ${directive}`));
  if (!found) throw new Error(`no request for directive ${JSON.stringify(directive)}`);
  return found;
}

async function forkOnce(run: RuntimeRun, sessionId: string, label: string, directive: string): Promise<ForkRequest> {
  const fork = await run.startFork({ sessionId, directive, forkTurns: 'all', name: label });
  const done = await run.waitFork(fork.id);
  if (done.state !== 'completed') throw new Error(`${label} ended ${done.state}: ${done.error ?? ''}`);
  return { label, directive, request: requestOf(run, directive), firstUsage: done.firstUsage };
}

/** Resolves once the request for `directive` has arrived and its response has started (usage set). */
function responseStarted(run: RuntimeRun, directive: string): Promise<void> {
  return new Promise(resolve => {
    const off = run.fake.onRequest(r => {
      if (!r.rawBody.includes(`DIRECTIVE: ${directive}`)) return;
      off();
      const poll = () => (r.usage || r.outcome ? resolve() : setTimeout(poll, 2));
      poll();
    });
  });
}

async function staggeredSiblings(run: RuntimeRun, sessionId: string): Promise<ForkRequest[]> {
  const directives = ['Check module-1.txt for unused values.', 'Check module-2.txt for unused values.', 'Check module-3.txt for unused values.'];
  const started = responseStarted(run, directives[0]);
  const first = await run.startFork({ sessionId, directive: directives[0], forkTurns: 'all', name: 'sibling 1' });
  await started;
  const rest = await Promise.all(directives.slice(1).map((directive, i) => run.startFork({ sessionId, directive, forkTurns: 'all', name: `sibling ${i + 2}` })));
  const done = await Promise.all([first, ...rest].map(f => run.waitFork(f.id)));
  return done.map((summary, i) => {
    if (summary.state !== 'completed') throw new Error(`sibling ${i + 1} ended ${summary.state}: ${summary.error ?? ''}`);
    return { label: `sibling ${i + 1}${i === 0 ? ' (started first)' : ' (after 1 started)'}`, directive: directives[i], request: requestOf(run, directives[i]), firstUsage: summary.firstUsage };
  });
}

/** Input tokens before the fork's closing message (placeholders + directive): what it could read from cache. */
function prefixBeforeClosing(request: ReceivedRequest): number {
  return countInputTokens({ ...request.body, messages: request.body.messages.slice(0, -1) });
}

function breakpointsOf(request: ReceivedRequest): number[] {
  const messages = request.body.messages as { content: { cache_control?: unknown }[] }[];
  return messages.flatMap((m, i) => (m.content.some(b => b.cache_control) ? [i] : []));
}

function toResult(parent: Parent, forks: ForkRequest[]) {
  const usageRow = (label: string, usage: Usage, judged: boolean, extra: Record<string, number | string> = {}): Row => {
    const share = cacheReadShare(usage);
    const total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    return {
      label,
      result: `${pct(share)} read (${thousands(usage.cache_read_input_tokens)} of ${thousands(total)}; written ${thousands(usage.cache_creation_input_tokens)}, uncached ${thousands(usage.input_tokens)})`,
      target: judged ? `≥ ${TARGET_SHARE * 100}%` : undefined,
      verdict: judged ? (share >= TARGET_SHARE ? 'PASS' : 'MISS') : 'info',
      values: { share: Math.round(share * 10000) / 10000, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cache_read_input_tokens: usage.cache_read_input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens, totalInputTokens: total, ...extra },
    };
  };
  const rows: Row[] = [usageRow(`parent's latest request (${parent.turns} turns)`, parent.request.usage!, false)];
  for (const fork of forks) rows.push(usageRow(`${fork.label}, turns=all`, fork.request.usage!, true, { summaryFirstUsageShare: fork.firstUsage ? Math.round(cacheReadShare(fork.firstUsage) * 10000) / 10000 : 'missing' }));
  const siblings = forks.filter(f => f.label.startsWith('sibling'));
  const gaps = siblings.map(f => prefixBeforeClosing(f.request) - f.request.usage!.cache_read_input_tokens);
  const laterGaps = gaps.slice(1);
  rows.push({
    label: 'siblings: prefix before their directive message read from cache',
    result: `not read: ${gaps.map((g, i) => `#${i + 1} ${thousands(g)}`).join(', ')} tokens (of ${thousands(prefixBeforeClosing(siblings[0].request))})`,
    target: 'siblings 2–3: 0 tokens not read',
    verdict: laterGaps.every(g => g <= 0) ? 'PASS' : 'MISS',
    values: Object.fromEntries(gaps.map((g, i) => [`sibling${i + 1}UnreadPrefixTokens`, g])),
  });
  const first = forks[0].request;
  return {
    rows,
    details: {
      parentTokens: parent.tokens,
      parentTurns: parent.turns,
      parentRequestMessages: parent.request.body.messages.length,
      parentBreakpointMessages: breakpointsOf(parent.request),
      firstForkRequestMessages: first.body.messages.length,
      firstForkBreakpointMessages: breakpointsOf(first),
      firstForkPrefixBeforeClosingTokens: prefixBeforeClosing(first),
    },
    notes: [
      'share = cache_read_input_tokens / (input + cache_read + cache_creation) of the fork\'s first request, from the fake\'s ReceivedRequest.usage.',
      'tokens are the fake\'s estimate (JSON chars / 4 per block); the fake\'s minimum cacheable prefix is 1,024 tokens.',
    ],
  };
}
