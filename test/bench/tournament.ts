// Section "tournament": a 3-attempt tournament beside one plain fork of the same point, through the real runtime,
// real git worktrees and the fake's prompt-cache simulation (its token counts). Targets: attempts 2..N
// read ≥ 90% of their first request from the cache; the tournament's first requests bill ≤ 1.3× the
// input of the plain fork's first request (each attempt's own later work excluded).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { tournamentStart, tournamentWait } from '../../src/common/protocol/forks';
import { cacheReadShare } from '../../src/common/transcript';
import type { Usage } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import { buildParent } from './cacheShare';
import { startRuntimeRun } from './runtimeDriver';
import { pct, thousands } from './stats';
import type { Row, Section } from './types';

const ATTEMPTS = 3;
const TARGET_SHARE = 0.9;
const TARGET_BILLED = 1.3;
const BOILERPLATE = '<fork-boilerplate>';
const flat = (u: Usage) => ({ input_tokens: u.input_tokens, cache_read_input_tokens: u.cache_read_input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens, output_tokens: u.output_tokens });
const say = (text: string): ScriptedTurn => ({ content: [{ type: 'text', text }] });

/** Tokens billed at the full input rate or above: uncached input plus cache writes. */
const fullRate = (u: Usage) => u.input_tokens + u.cache_creation_input_tokens;
/** The same priced in input-token equivalents (cache reads 0.1×, 5-minute writes 1.25×, per Anthropic's pricing page). */
const weighted = (u: Usage) => u.input_tokens + 0.1 * u.cache_read_input_tokens + 1.25 * u.cache_creation_input_tokens;

export const tournamentSection: Section = {
  id: 'tournament',
  title: `Tournament of ${ATTEMPTS} attempts vs one fork of the same point (real runtime, worktrees, fake cache simulation)`,
  async run(ctx) {
    const parentScript: ScriptedTurn[] = [];
    const run = await startRuntimeRun(ctx, r => (r.rawBody.includes(BOILERPLATE) ? say('Scope: bench.\nResult: done.') : parentScript.shift() ?? say('(nothing scripted)')));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: run.root, stdio: 'ignore' });
      git('init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(run.root, 'README.md'), 'bench\n');
      git('add', '-A');
      git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-qm', 'initial');
      const parent = await buildParent(run, parentScript);
      const firstOf = (directive: string) => run.fake.requests.filter(r => r.rawBody.includes(`DIRECTIVE: ${directive}`));
      const plainDirective = 'Summarise what the files have in common.';
      const plain = await run.startFork({ sessionId: parent.sessionId, directive: plainDirective, forkTurns: 'all', name: 'plain fork' });
      await run.waitFork(plain.id);
      const plainRequest = firstOf(plainDirective)[0];
      const directive = 'List the exported names of every module.';
      const started = await sendRequest(run.client.endpoint, tournamentStart, { sessionId: parent.sessionId, directive, attempts: ATTEMPTS, verify: '' });
      const result = await sendRequest(run.client.endpoint, tournamentWait, { groupId: started.group.id });
      const attemptRequests = result.attempts.map(a => firstOf(directive).find(r => r.rawBody.includes(`Attempt ${a.attempt} of ${ATTEMPTS}`))!);
      return toResult(parent.tokens, plainRequest, attemptRequests, result.judgeUsage);
    } finally {
      await run.dispose();
    }
  },
};

function toResult(parentTokens: number, plain: ReceivedRequest, attempts: ReceivedRequest[], judge: Usage | undefined) {
  const usageText = (u: Usage) => `${pct(cacheReadShare(u))} read (read ${thousands(u.cache_read_input_tokens)}, written ${thousands(u.cache_creation_input_tokens)}, uncached ${thousands(u.input_tokens)})`;
  const rows: Row[] = [{ label: 'plain fork: first request', result: usageText(plain.usage!), verdict: 'info', values: flat(plain.usage!) }];
  attempts.forEach((request, i) => {
    const share = cacheReadShare(request.usage!);
    const judged = i > 0;
    rows.push({
      label: `attempt ${i + 1}: first request`, result: usageText(request.usage!), target: judged ? `≥ ${TARGET_SHARE * 100}%` : undefined,
      verdict: judged ? (share >= TARGET_SHARE ? 'PASS' : 'MISS') : 'info', values: { share: Math.round(share * 10000) / 10000, ...flat(request.usage!) },
    });
  });
  const ratio = attempts.reduce((s, r) => s + fullRate(r.usage!), 0) / fullRate(plain.usage!);
  rows.push({
    label: `billed input (uncached + written) of ${attempts.length} attempts' first requests ÷ the plain fork's`,
    result: `${ratio.toFixed(2)}×`, target: `≤ ${TARGET_BILLED}×`, verdict: ratio <= TARGET_BILLED ? 'PASS' : 'MISS', values: { ratio: Math.round(ratio * 1000) / 1000 },
  });
  const priced = attempts.reduce((s, r) => s + weighted(r.usage!), 0) / weighted(plain.usage!);
  rows.push({
    label: 'the same priced (reads 0.1×, writes 1.25×)', result: `${priced.toFixed(2)}× (N independent sessions: ~${attempts.length * 1.25}×)`, verdict: 'info',
    values: { ratio: Math.round(priced * 1000) / 1000 },
  });
  if (judge) rows.push({ label: 'judge request', result: usageText(judge), verdict: 'info', values: flat(judge) });
  return {
    rows,
    details: { parentTokens },
    notes: [
      'Attempts share the prefix up to and including the directive; only the attempt note after it differs (the breakpoint sits on the directive).',
      'No verify command here: every attempt completes, so they tie and the judge request runs (its row).',
      'billed input counts the first request of each attempt (their own later work excluded), against the plain fork\'s first request.',
    ],
  };
}
