// Building DOM without HTML strings: text always goes in as text. The one exception, `setTrustedHtml`,
// takes only markdown the host rendered with raw HTML disabled (see src/host/panel/markdown.ts).

type Child = Node | string | undefined | null | false;
type AttrValue = string | number | boolean | undefined | null;
export type Attrs = Record<string, AttrValue>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(key === 'className' ? 'class' : key, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function icon(name: string, extra = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name}${extra ? ` ${extra}` : ''}`, 'aria-hidden': 'true' });
}

export function button(label: string, options: { icon?: string; kind?: 'primary' | 'secondary' | 'icon' | 'toolbar'; title?: string; onClick: () => void }): HTMLButtonElement {
  const kind = options.kind ?? 'secondary';
  const el = h(
    'button',
    { type: 'button', class: `button ${kind}`, title: options.title ?? label, 'aria-label': options.title ?? label },
    options.icon ? icon(options.icon) : undefined,
    kind === 'icon' ? undefined : h('span', { class: 'label' }, label),
  );
  el.addEventListener('click', event => {
    event.stopPropagation();
    options.onClick();
  });
  return el;
}

export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/** Only for the host's markdown-it output (raw HTML disabled, links inert): never for anything else. */
export function setTrustedHtml(el: Element, hostRenderedMarkdown: string): void {
  el.innerHTML = hostRenderedMarkdown;
}
