// The cache explorer in a fork's row: one compact bar per request — read from the cache, written to it,
// uncached — under a legend, with the first point its prompt stopped matching the request it should have
// extended named on the bar (tooltip) and, for requests that read less, in a line below: information
// when the cause is expected (the cache lifetime passed, another model, a fork of the last turns), a
// warning otherwise.
import { CAUSE_LABELS, cacheBar, cacheNotes, isExpected, isMiss } from '../src/common/cacheExplorer';
import type { CacheContext, CacheStep } from '../src/common/cacheExplorer';
import { tokenText } from '../src/common/forkDisplay';
import { inputTokens } from '../src/common/transcript';
import { h } from './dom';

export class CacheBars {
  readonly el = h('section', { class: 'cache-section', 'aria-label': 'Prompt cache per request' });
  private readonly bars = h('ol', { class: 'cache-bars' });
  private readonly misses = h('ul', { class: 'cache-misses' });
  private shown = '';

  constructor() {
    this.el.append(h('h3', {}, 'Cache per request'), legend(), this.bars, this.misses);
    this.el.hidden = true;
  }

  set(steps: readonly CacheStep[] | undefined, context: CacheContext = {}): void {
    const key = JSON.stringify([steps ?? [], context]);
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = !steps || steps.length === 0;
    this.bars.replaceChildren(...(steps ?? []).map(step => bar(step, context)));
    const notes = cacheNotes(steps ?? [], context);
    this.misses.replaceChildren(...notes.map(note => h('li', { class: `cache-note ${note.kind}` }, note.text)));
    this.misses.hidden = notes.length === 0;
  }
}

/** What the three colours of a bar mean. */
function legend(): HTMLElement {
  const key = (cls: string, text: string) => h('span', { class: 'cache-key' }, h('span', { class: `swatch ${cls}` }), text);
  return h('div', { class: 'cache-legend', 'aria-label': 'Legend' }, key('read', 'read from cache'), key('write', 'written to cache'), key('uncached', 'not cached'));
}

function bar(step: CacheStep, context: CacheContext): HTMLElement {
  const shares = cacheBar(step.usage);
  const u = step.usage;
  const title = `Request ${step.index + 1}: ${tokenText(u.cache_read_input_tokens)} read, ${tokenText(u.cache_creation_input_tokens)} written, ` +
    `${tokenText(u.input_tokens)} uncached of ${tokenText(inputTokens(u))} input tokens. ${CAUSE_LABELS[step.cause]}: ${step.detail}`;
  const part = (cls: string, share: number) => {
    const el = h('span', { class: cls });
    // CSSOM, not a style attribute: the panel's CSP allows no inline styles.
    el.style.width = `${Math.round(share * 1000) / 10}%`;
    return el;
  };
  return h(
    'li',
    { class: `cache-bar${isMiss(step.cause) ? (isExpected(step, context) ? ' expected' : ' miss') : ''}`, title, 'aria-label': title, 'data-cause': step.cause },
    part('read', shares.read), part('write', shares.write), part('uncached', shares.uncached),
  );
}
