// How a fork's numbers read in the Forks panel (and anywhere else that lists forks). Pure.
import type { ForkState, ForkSummary } from './forks';
import { cacheReadShare, inputTokens } from './transcript';
import type { Usage } from './transcript';
import { allTokens } from './budget';
import { NO_PRICE_TEXT, cacheEffectText, noPriceText, usdText } from './pricing';

export function stateLabel(state: ForkState): string {
  if (state === 'paused-budget') return 'paused (budget)';
  return state === 'waiting-for-approval' ? 'waiting for approval' : state;
}

export function originLabel(origin: ForkSummary['origin']): string {
  return origin === 'user' ? 'you' : origin === 'agent' ? 'the agent' : 'from message';
}

export function turnsLabel(forkTurns: string, summaryExcluded = false): string {
  if (forkTurns === 'all') return 'all turns';
  const window = forkTurns === '1' ? 'last turn' : `last ${forkTurns} turns`;
  return summaryExcluded ? `${window}, no summary` : window;
}

/** 5s, 1m 05s, 2h 03m. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Time since the fork was created, up to its end when it has one. */
export function elapsedMs(fork: Pick<ForkSummary, 'createdAt' | 'endedAt'>, now: number): number {
  const start = Date.parse(fork.createdAt);
  const end = fork.endedAt ? Date.parse(fork.endedAt) : now;
  return Number.isFinite(start) && Number.isFinite(end) ? end - start : 0;
}

/** 950, 12.3k, 4.56M. */
export function tokenText(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1).replace(/\.?0+$/, '')}k`;
  return `${(n / 1_000_000).toFixed(2).replace(/\.?0+$/, '')}M`;
}


export function percentText(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** "Forks spent $0.42 (the cache saved $1.10)", plus how many have no known price. */
export function spendingText(forks: Iterable<Pick<ForkSummary, 'cost' | 'modelTurns'>>): string {
  let usd = 0;
  let uncached = 0;
  let unpriced = 0;
  let any = false;
  for (const fork of forks) {
    if (fork.cost) {
      any = true;
      usd += fork.cost.usd;
      uncached += fork.cost.uncachedUsd;
    } else if (fork.modelTurns > 0) {
      unpriced++;
    }
  }
  const parts = any ? [`Forks spent ${usdText(usd)} (${cacheEffectText({ usd, uncachedUsd: uncached })})`] : [];
  if (unpriced > 0) parts.push(`${unpriced} fork(s): ${NO_PRICE_TEXT} (set the fork.prices setting)`);
  return parts.join('; ');
}

export interface UsageLine { text: string; title: string }

/** "$0.042 · saved $0.11 vs uncached" or "no price known for m"; with the budget when there is one. */
export function costLine(fork: Pick<ForkSummary, 'cost' | 'model' | 'budget' | 'modelTurns' | 'usage'>): UsageLine {
  const parts: string[] = [];
  const title: string[] = [];
  if (fork.cost) {
    parts.push(usdText(fork.cost.usd), cacheEffectText(fork.cost, { form: 'row' }));
    title.push(`Cost of the usage the provider reported, at ${fork.model ?? 'the model'}'s price; the same tokens uncached would have cost ${usdText(fork.cost.uncachedUsd)}.`);
  } else if (fork.modelTurns > 0) {
    parts.push(noPriceText(fork.model, 'editor'));
    title.push('Give this model a price in the fork.prices setting (dollars per million tokens).');
  }
  if (fork.budget) {
    const spent = 'usd' in fork.budget ? (fork.cost ? usdText(fork.cost.usd) : '?') : tokenText(allTokens(fork.usage));
    parts.push(`budget ${spent} of ${'usd' in fork.budget ? usdText(fork.budget.usd) : `${tokenText(fork.budget.tokens)} tokens`}`);
  }
  return { text: parts.join(' · '), title: title.join(' ') };
}

/**
 * "3 model turns · 12.3k in / 1.2k out · first request 94% cached": the first request's share is the
 * inherited prefix, and says which request it is about, so a later request whose cache had expired does
 * not read as a contradiction of it.
 */
export function usageLine(fork: Pick<ForkSummary, 'modelTurns' | 'usage' | 'firstUsage' | 'context'>): UsageLine {
  const parts = [`${fork.modelTurns} model turn${fork.modelTurns === 1 ? '' : 's'}`];
  if (fork.modelTurns > 0) parts.push(`${tokenText(inputTokens(fork.usage))} in / ${tokenText(fork.usage.output_tokens)} out`);
  const title: string[] = [];
  if (fork.firstUsage) {
    parts.push(`first request ${percentText(cacheReadShare(fork.firstUsage))} cached`);
    title.push(`First request: ${percentText(cacheReadShare(fork.firstUsage))} of ${tokenText(inputTokens(fork.firstUsage))} input tokens read from the prompt cache.`);
    title.push(`All requests: ${percentText(cacheReadShare(fork.usage))} of ${tokenText(inputTokens(fork.usage))}.`);
  }
  // Context accounting: how full the fork's latest request was.
  if (fork.context?.window) {
    parts.push(`context ${percentText(fork.context.tokens / fork.context.window)}`);
    title.push(`Latest request: ${tokenText(fork.context.tokens)} of a ${tokenText(fork.context.window)}-token context window.`);
  }
  return { text: parts.join(' · '), title: title.join(' ') };
}

/** "setup: npm ci (running) · port 20000 · ended 2 processes it left running"; '' when there is nothing to say. */
export function workspaceLine(fork: Pick<ForkSummary, 'setup' | 'portBase' | 'endedProcesses' | 'state'>): string {
  const parts: string[] = [];
  const setup = fork.setup;
  if (setup) {
    const what = setup.command ? `setup: ${commandLabel(setup.command)}` : 'preparing the worktree';
    if (setup.state === 'running') parts.push(`${what} (running)`);
    else if (setup.state === 'failed') parts.push(`${what} (failed${typeof setup.exitCode === 'number' ? `, exit code ${setup.exitCode}` : ''})`);
    else parts.push(setup.command ? `${what} (exit code 0)` : 'worktree prepared');
  }
  if (fork.portBase !== undefined && (fork.state === 'running' || fork.state === 'waiting-for-approval')) parts.push(`port ${fork.portBase}`);
  if (fork.endedProcesses) parts.push(`ended ${fork.endedProcesses} process${fork.endedProcesses === 1 ? '' : 'es'} it left running`);
  return parts.join(' · ');
}

/** A setup command on one short line: its first line, at most 60 characters. */
export function commandLabel(command: string): string {
  const line = command.trim().split('\n', 1)[0];
  return line.length > 60 || command.trim().includes('\n') ? `${line.slice(0, 59).trimEnd()}…` : line;
}

/** Lines added and removed in a unified patch (file headers `+++` / `---` are not lines of the change). */
export function diffStat(patch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

/**
 * A name or directive cut to `max` characters at a word boundary, with "…" when cut: "create NOTES.md
 * with notes from a" never ends mid-phrase's word. Show the full text on hover beside it.
 */
export function shortText(text: string, max = 48): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // One long word (a path, say) is cut where it must be.
  const head = space >= max / 2 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.\u2013\u2014-]+$/, '')}…`;
}

/**
 * How a fork reads in the chat answer that started it: "“fix the tests” completed · 3 model turns ·
 * +12 −3 · $0.004". No ids, no paths: those are for the model and the Forks view.
 */
export function chatForkLine(
  fork: Pick<ForkSummary, 'name' | 'state' | 'modelTurns' | 'cost' | 'worktree' | 'isolation'> & Partial<Pick<ForkSummary, 'model'>>,
  stat?: { added: number; removed: number },
): string {
  const parts = [`${worktreeState(fork) ?? stateLabel(fork.state)}`, `${fork.modelTurns} model turn${fork.modelTurns === 1 ? '' : 's'}`];
  if (stat) parts.push(stat.added === 0 && stat.removed === 0 ? 'no changes' : `+${stat.added} −${stat.removed}`);
  if (fork.cost) parts.push(usdText(fork.cost.usd));
  else if (fork.modelTurns > 0) parts.push(noPriceText(fork.model, 'editor'));
  return `“${shortText(fork.name)}” ${parts.join(' · ')}`;
}

/** After the user acted on a worktree fork's changes: applied / kept / discarded; undefined before. */
export function worktreeState(fork: Pick<ForkSummary, 'worktree'>): string | undefined {
  const worktree = fork.worktree;
  if (!worktree) return undefined;
  if (worktree.discarded) return 'discarded';
  if (worktree.appliedAt) return 'applied';
  if (worktree.keptAt) return 'kept';
  return undefined;
}

/** The store's size for the panel's footer: a fresh store is a few kilobytes, not "0.0 MB". */
export function storeSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
