// fork-agents transcript: a session's entries (with each response's cost), readable or as JSON lines;
// with --cache, the cache explorer: one line per request with its cache figures and why it missed.
import { CAUSE_LABELS, isMiss, transformationText } from '../../common/cacheExplorer';
import type { CacheStep } from '../../common/cacheExplorer';
import { sendRequest } from '../../common/protocol/endpoint';
import { sessionCache, sessionTranscript } from '../../common/protocol/runtime';
import { cacheEffectText, noPriceText, usdText } from '../../common/pricing';
import type { CostFigures } from '../../common/pricing';
import type { Entry } from '../../common/transcript';
import { cacheReadShare, inputTokens } from '../../common/transcript';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { connectCli } from '../connect';
import { printJson } from '../output';

export async function transcriptCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session') ?? args.flags.get('fork');
  if (!sessionId) throw new UsageError('transcript needs --session ID or --fork ID');
  const client = await connectCli(args);
  try {
    if (args.switches.has('cache')) return printCache((await sendRequest(client.endpoint, sessionCache, { sessionId })).steps, args.switches.has('json'));
    const { header, entries, costs, spent, damage } = await sendRequest(client.endpoint, sessionTranscript, { sessionId });
    for (const line of damage ?? []) process.stderr.write(`warning: ${line}\n`);
    if (args.switches.has('json')) {
      printJson({ type: 'header', header });
      for (const entry of entries) printJson({ type: 'entry', entry, ...(costs?.entries[entry.id] ? { cost: costs.entries[entry.id] } : {}) });
      printJson({ type: 'total', model: header.settings.model, usage: spent, cost: costs?.total ?? null, priceFrom: costs?.priceFrom ?? null });
      return;
    }
    process.stdout.write(`# ${header.title} (${header.id})\nroot: ${header.root}\n\n`);
    for (const entry of entries) process.stdout.write(formatEntry(entry, costs?.entries[entry.id]) + '\n');
    process.stdout.write(`\ntotal: ${costs ? costLine(costs.total) : noPriceText(header.settings.model, 'cli')}\n`);
  } finally {
    await client.close();
  }
}

function printCache(steps: CacheStep[], json: boolean): void {
  if (json) {
    for (const step of steps) printJson({ type: 'request', ...step });
    return;
  }
  if (steps.length === 0) process.stdout.write('no requests yet\n');
  for (const step of steps) {
    const u = step.usage;
    const bar = barText(cacheReadShare(u), inputTokens(u) === 0 ? 0 : u.cache_creation_input_tokens / inputTokens(u));
    const mark = isMiss(step.cause) ? '✗' : '✓';
    process.stdout.write(
      `#${step.index + 1} ${step.time} ${bar} read ${u.cache_read_input_tokens} · write ${u.cache_creation_input_tokens} · uncached ${u.input_tokens}` +
        ` · ${mark} ${CAUSE_LABELS[step.cause]}: ${step.detail} (${step.matchedBlocks}/${step.totalBlocks} blocks shared)\n`,
    );
    for (const change of step.inputTransformations ?? []) process.stdout.write(`   API changed the input: ${transformationText(change)}\n`);
  }
}

/** 20 cells: █ read from the cache, ▒ written to it, · neither. */
function barText(read: number, write: number): string {
  const r = Math.round(read * 20);
  const w = Math.min(20 - r, Math.round(write * 20));
  return `[${'█'.repeat(r)}${'▒'.repeat(w)}${'·'.repeat(20 - r - w)}]`;
}

function costLine(cost: CostFigures): string {
  return `${usdText(cost.usd)} (uncached ${usdText(cost.uncachedUsd)}, ${cacheEffectText(cost, { form: 'clause' })})`;
}

function formatEntry(entry: Entry, cost: CostFigures | undefined): string {
  const parts = entry.message.content.map(block => {
    switch (block.type) {
      case 'text': return block.text;
      case 'tool_use': return `→ ${block.name} ${JSON.stringify(block.input)}`;
      case 'tool_result': return `← ${typeof block.content === 'string' ? block.content.split('\n', 1)[0] : '(blocks)'}${block.is_error ? ' (error)' : ''}`;
      case 'thinking': return '(thinking)';
      default: return `(${block.type})`;
    }
  });
  return `[${entry.kind}] ${parts.join('\n  ')}${cost ? `\n  (cost ${costLine(cost)})` : ''}`;
}
