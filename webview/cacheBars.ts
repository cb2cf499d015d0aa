// The cache explorer in a fork's row: one compact bar per request — read from the cache,
// written to it, uncached — with the first point its prompt stopped matching the request it should have
// extended named on the bar (tooltip) and, for misses, in a line below.
import { CAUSE_LABELS, cacheBar, isMiss } from '../src/common/cacheExplorer';
import type { CacheStep } from '../src/common/cacheExplorer';
import { tokenText } from '../src/common/forkDisplay';
import { inputTokens } from '../src/common/transcript';
import { h } from './dom';

export class CacheBars {
  readonly el = h('section', { class: 'cache-section', 'aria-label': 'Prompt cache per request' });
  private readonly bars = h('ol', { class: 'cache-bars' });
  private readonly misses = h('ul', { class: 'cache-misses' });
  private shown = '';

  constructor() {
    this.el.append(h('h3', {}, 'Cache per request'), this.bars, this.misses);
    this.el.hidden = true;
  }

  set(steps: readonly CacheStep[] | undefined): void {
    const key = JSON.stringify(steps ?? []);
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = !steps || steps.length === 0;
    this.bars.replaceChildren(...(steps ?? []).map(bar));
    const missed = (steps ?? []).filter(step => isMiss(step.cause));
    this.misses.replaceChildren(...missed.map(step => h('li', {}, `#${step.index + 1}: ${CAUSE_LABELS[step.cause]} — ${step.detail}`)));
    this.misses.hidden = missed.length === 0;
  }
}

function bar(step: CacheStep): HTMLElement {
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
    { class: `cache-bar${isMiss(step.cause) ? ' miss' : ''}`, title, 'aria-label': title, 'data-cause': step.cause },
    part('read', shares.read), part('write', shares.write), part('uncached', shares.uncached),
  );
}
