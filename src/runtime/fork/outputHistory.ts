// A fork's output rebuilt from its own transcript entries, as the AgentEvents its run emitted: a window
// that opens (or reloads) while a fork runs shows what the fork did before, not only what comes next.
// Streaming detail is gone (one text event per response), and the fork's prompts are not output.
// What the run emitted since its last commit is kept by the fork manager (UncommittedOutput).
import type { AgentEvent } from '../../common/agentEvents';
import type { Entry, ToolResultBlock } from '../../common/transcript';
import { inputTokens } from '../../common/transcript';
import { toolResultSummary } from '../agent/loop';
import { findTool } from '../tools/registry';

/** Events for the last `maxEntries` of `own` (the panel keeps only the tail of a long run anyway). */
export function outputHistory(own: readonly Entry[], maxEntries = 200): AgentEvent[] {
  const entries = own.slice(-maxEntries);
  const events: AgentEvent[] = [];
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (entry.kind === 'response') events.push(...responseEvents(entry, names));
    else if (entry.kind === 'tool_results') events.push(...resultEvents(entry, names));
    else if (entry.kind === 'reminder') events.push(...setupEvents(entry));
    else if (entry.kind === 'summary') events.push({ type: 'compaction', auto: true, summaryEntryId: entry.id, tokensBefore: entry.usage ? inputTokens(entry.usage) : 0 });
  }
  return events;
}

/** A worktree preparation's reminder (forkWorkspace.ts) shown as the setup output it records. */
function setupEvents(entry: Entry): AgentEvent[] {
  const text = entry.message.content.map(b => (b.type === 'text' ? b.text : '')).join('');
  const body = /<worktree-setup>\n([\s\S]*?)\n<\/worktree-setup>/.exec(text)?.[1];
  return body ? [{ type: 'setup_output', text: `${body}\n` }] : [];
}

function responseEvents(entry: Entry, names: Map<string, string>): AgentEvent[] {
  const events: AgentEvent[] = [{ type: 'request_start', index: 0 }];
  for (const block of entry.message.content) {
    if (block.type === 'text' && block.text !== '') events.push({ type: 'text_delta', text: block.text });
    if (block.type !== 'tool_use') continue;
    names.set(block.id, block.name);
    const tool = findTool(block.name);
    events.push({ type: 'tool_call', callId: block.id, name: block.name, category: tool?.category ?? 'read', description: describe(block.name, block.input) });
  }
  return events;
}

function resultEvents(entry: Entry, names: ReadonlyMap<string, string>): AgentEvent[] {
  return entry.message.content
    .filter((block): block is ToolResultBlock => block.type === 'tool_result')
    .map(block => ({
      type: 'tool_result', callId: block.tool_use_id, name: names.get(block.tool_use_id) ?? '', isError: block.is_error === true,
      summary: toolResultSummary(typeof block.content === 'string' ? block.content : block.content.map(b => (b.type === 'text' ? b.text : '[image]')).join('')), files: [],
    }));
}

function describe(name: string, input: unknown): string {
  // Tools' describe() never throws (safeDescribe), whatever the recorded input.
  return findTool(name)?.describe(input) ?? name;
}

/** A run's output events since its last committed entry (text deltas merged): what its entries do not hold yet. */
export class UncommittedOutput {
  private events: AgentEvent[] = [];

  add(event: AgentEvent): void {
    if (event.type === 'entry') {
      // Setup output is in no entry until its reminder is committed: a window opening meanwhile still sees it.
      this.events = event.entry.kind === 'reminder' ? [] : this.events.filter(e => e.type.startsWith('setup_'));
      return;
    }
    // Usage and reasoning are not output; everything else the panel shows is.
    if (event.type === 'usage' || event.type === 'thinking_delta') return;
    const last = this.events[this.events.length - 1];
    if (event.type === 'text_delta' && last?.type === 'text_delta') this.events[this.events.length - 1] = { type: 'text_delta', text: last.text + event.text };
    else this.events.push(event);
  }

  list(): AgentEvent[] {
    return this.events.slice();
  }

  clear(): void {
    this.events = [];
  }
}
