// Section 3c: an `all` fork on a model that keeps and checks its thinking (Sonnet 5.5, preserved thinking)
// beside an older model without it (Haiku 4.5): the fork's first request must still read ≥ 90% from the
// cache, and on 5.5 carry the parent's thinking blocks byte for byte (the API refuses a changed prefix).
// Same parent as section 3 (~30,000 tokens of tool results), through the real runtime, SDK and fake.
import * as os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { cacheReadShare } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { buildParent, forkOnce } from './cacheShare';
import { startRuntimeRun } from './runtimeDriver';
import type { Row, Section } from './types';
import { pct, thousands } from './stats';

const MODELS = ['claude-sonnet-5-5', 'claude-haiku-4-5'];
const TARGET_SHARE = 0.9;
const BOILERPLATE = '<fork-boilerplate>';

const thinkingIn = (blocks: { type: string }[]) => blocks.filter(b => b.type === 'thinking' || b.type === 'redacted_thinking');
const thinkingOf = (r: ReceivedRequest) => (r.body.messages as { content: { type: string }[] }[]).flatMap(m => thinkingIn(m.content));

export const thinkingForkSection: Section = {
  id: '3c',
  title: 'An `all` fork on a preserved-thinking model (Sonnet 5.5) beside an older one: cache share and thinking kept',
  async run(ctx) {
    const rows: Row[] = [];
    for (const model of MODELS) {
      const script: ScriptedTurn[] = [];
      const say = (text: string): ScriptedTurn => ({ content: [{ type: 'text', text }] });
      const run = await startRuntimeRun(ctx, r => (r.rawBody.includes(BOILERPLATE) ? say('Scope: bench.\nResult: done.') : script.shift() ?? say('(nothing scripted)')), {}, { model });
      try {
        const load = os.loadavg()[0];
        const parent = await buildParent(run, script);
        const fork = await forkOnce(run, parent.sessionId, `${model} fork`, 'Summarise what the files have in common.');
        const usage = fork.request.usage!;
        const share = cacheReadShare(usage);
        const total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        const parentThinking = [...thinkingOf(parent.request), ...thinkingIn(parent.request.response!.content)];
        const kept = isDeepStrictEqual(thinkingOf(fork.request), parentThinking);
        const refused = run.fake.requests.filter(r => r.status !== 200).length;
        const ok = share >= TARGET_SHARE && kept && refused === 0;
        rows.push({
          label: `${model}: first request of an all fork (${parent.turns} parent turns)`,
          result: `${pct(share)} read (${thousands(usage.cache_read_input_tokens)} of ${thousands(total)}); thinking blocks ${parentThinking.length}, ${kept ? 'identical to the parent\'s' : 'DIFFERENT'}; ${refused} refused; load ${load.toFixed(1)}`,
          target: `≥ ${TARGET_SHARE * 100}%, thinking identical, none refused`,
          verdict: ok ? 'PASS' : 'MISS',
          values: { model, share: Math.round(share * 10000) / 10000, totalInputTokens: total, thinkingBlocks: parentThinking.length, thinkingIdentical: kept, refused, loadAverage1m: Math.round(load * 100) / 100 },
        });
      } finally {
        await run.dispose();
      }
    }
    return {
      rows,
      notes: [
        'thinking: the fake emits a thinking block with each answer where the request asks for thinking (adaptive on 5.5; the older model gets none, so 0 blocks there).',
        'load = 1-minute load average when the model\'s run started (the machine is shared).',
      ],
    };
  },
};
