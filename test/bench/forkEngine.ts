// Section 3b: the cache-read share of forks where real sessions go — an `all` fork of a
// compacted parent, and two numeric-window siblings started together (the stagger: the second waits for
// the first's response to start, docs/design.md §4.5) — through the real runtime, the real SDK and the fake's cache.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { sessionCompact } from '../../src/common/protocol/runtime';
import { cacheReadShare } from '../../src/common/transcript';
import type { Usage } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { startRuntimeRun } from './runtimeDriver';
import type { RuntimeRun } from './runtimeDriver';
import { Rng, codeListing, prose } from './transcriptGen';
import type { Row, Section } from './types';
import { pct, thousands } from './stats';

const BOILERPLATE = '<fork-boilerplate>';
const TARGET_SHARE = 0.9;
/** Time to first event of every fake response: the window in which a sibling's write is not readable yet. */
const FIRST_EVENT_DELAY_MS = 400;
const TURNS = 6;
const FILE_CHARS = 12_000;

const say = (text: string): ScriptedTurn => ({ content: [{ type: 'text', text }] });
const readCall = (file: string): ScriptedTurn => ({ content: [{ type: 'text', text: `Reading ${file}.` }, { type: 'tool_use', name: 'read_file', input: { path: file } }] });
const isSummary = (r: ReceivedRequest) => r.rawBody.includes('about to be replaced by a summary');

export const forkEngineSection: Section = {
  id: '3b',
  title: 'Fork cache-read share after compaction and for staggered siblings (real runtime + SDK, fake cache)',
  async run(ctx) {
    const script: ScriptedTurn[] = [];
    const rng = new Rng(310);
    const arrivals = new Map<ReceivedRequest, number>();
    const run = await startRuntimeRun(
      ctx,
      r => {
        if (isSummary(r)) return say(`Summary of the work so far.\n${prose(rng, 14_000, 16_000)}`);
        return r.rawBody.includes(BOILERPLATE) ? say('Scope: bench.\nResult: done.') : script.shift() ?? say('(nothing scripted)');
      },
      { firstEventDelayMs: FIRST_EVENT_DELAY_MS },
    );
    run.fake.onRequest(r => arrivals.set(r, performance.now()));
    try {
      const sessionId = await buildParent(run, script, rng);
      await sendRequest(run.client.endpoint, sessionCompact, { sessionId });
      for (let turn = TURNS + 1; turn <= TURNS + 2; turn++) await parentTurn(run, script, rng, sessionId, turn);
      const rows: Row[] = [];
      const compacted = await forkAndWait(run, sessionId, 'Review the compacted work.', 'all');
      rows.push(shareRow('compacted parent: all fork\'s first request', compacted.usage!));
      // Siblings started together on a window the parent never sent (turns=2): without the stagger both pay the write.
      const directives = ['Check the last two modules for dead code.', 'Check the last two modules for naming.'];
      const started = performance.now();
      const forks = await Promise.all(directives.map(directive => run.startFork({ sessionId, directive, forkTurns: '2', name: directive })));
      await Promise.all(forks.map(f => run.waitFork(f.id)));
      const [first, second] = directives.map(d => requestOf(run, d)).sort((a, b) => arrivals.get(a)! - arrivals.get(b)!);
      rows.push(shareRow('staggered siblings (turns=2): first to send', first.usage!, false));
      rows.push(shareRow('staggered siblings (turns=2): second', second.usage!));
      const added = arrivals.get(second)! - arrivals.get(first)!;
      rows.push({
        label: 'stagger: added latency before the second sibling sends',
        result: `${added.toFixed(0)} ms (first sent ${(arrivals.get(first)! - started).toFixed(0)} ms after start; fake time to first event ${FIRST_EVENT_DELAY_MS} ms)`,
        target: `≤ fake TTFT + 200 ms`,
        verdict: added <= FIRST_EVENT_DELAY_MS + 200 ? 'PASS' : 'MISS',
        values: { addedLatencyMs: Math.round(added), firstEventDelayMs: FIRST_EVENT_DELAY_MS },
      });
      return {
        rows,
        notes: [
          `parent: ${TURNS} turns reading ${thousands(FILE_CHARS)}-char files, compacted (summary ~15,000 chars), then 2 more turns; fake TTFT ${FIRST_EVENT_DELAY_MS} ms.`,
          'share = cache_read_input_tokens / all input tokens of the fork\'s first request (fake ReceivedRequest.usage).',
        ],
      };
    } finally {
      await run.dispose();
    }
  },
};

async function buildParent(run: RuntimeRun, script: ScriptedTurn[], rng: Rng): Promise<string> {
  const first = await parentTurn(run, script, rng, undefined, 1);
  for (let turn = 2; turn <= TURNS; turn++) await parentTurn(run, script, rng, first, turn);
  return first;
}

async function parentTurn(run: RuntimeRun, script: ScriptedTurn[], rng: Rng, sessionId: string | undefined, turn: number): Promise<string> {
  const file = `module-${turn}.txt`;
  fs.writeFileSync(path.join(run.root, file), codeListing(rng, FILE_CHARS, FILE_CHARS).replace(/^ *\d+\t/gm, '') + '\n');
  script.push(readCall(file), say(prose(rng, 300, 600)));
  const result = await run.send(`Read ${file} and tell me what it does.`, sessionId);
  if (result.error) throw new Error(`parent turn ${turn} failed: ${result.error.message}`);
  return result.sessionId;
}

async function forkAndWait(run: RuntimeRun, sessionId: string, directive: string, forkTurns: string): Promise<ReceivedRequest> {
  const fork = await run.startFork({ sessionId, directive, forkTurns, name: directive });
  const done = await run.waitFork(fork.id);
  if (done.state !== 'completed') throw new Error(`fork ended ${done.state}: ${done.error ?? ''}`);
  return requestOf(run, directive);
}

function requestOf(run: RuntimeRun, directive: string): ReceivedRequest {
  const found = run.fake.requests.find(r => r.rawBody.includes(BOILERPLATE) && r.rawBody.includes(`DIRECTIVE: ${directive}`));
  if (!found) throw new Error(`no request for directive ${JSON.stringify(directive)}`);
  return found;
}

function shareRow(label: string, usage: Usage, judged = true): Row {
  const share = cacheReadShare(usage);
  const total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
  return {
    label,
    result: `${pct(share)} read (${thousands(usage.cache_read_input_tokens)} of ${thousands(total)}; written ${thousands(usage.cache_creation_input_tokens)})`,
    target: judged ? `≥ ${TARGET_SHARE * 100}%` : undefined,
    verdict: judged ? (share >= TARGET_SHARE ? 'PASS' : 'MISS') : 'info',
    values: {
      share: Math.round(share * 10000) / 10000, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens, totalInputTokens: total,
    },
  };
}
