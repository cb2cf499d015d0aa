// Model output is untrusted: reports and answers are rendered by markdown-it with raw HTML
// off (an `<img onerror>` or `<script>` shows as text), no linkify, no images (nothing remote loads),
// only http(s)/mailto link targets, and links made inert — the href lives in data-href, so neither the
// browser nor VS Code's webview follows it; the panel asks the host (`open/link`), which asks the user.
// This string is the only HTML the webview ever assigns to innerHTML.
import MarkdownIt from 'markdown-it';
import { splitReport } from '../../common/reportSections';

const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i;

// breaks: reports are line-oriented (Scope: / Result: / Key files: …), so a newline stays a line break.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
md.disable(['image']);
// A link whose target fails this renders as its literal source text.
md.validateLink = (url: string) => SAFE_LINK.test(url.trim());
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet('href') ?? '';
  token.attrs = [['data-href', href], ['class', 'md-link'], ['role', 'link'], ['tabindex', '0'], ['title', href]];
  return self.renderToken(tokens, idx, options);
};

export function renderUntrustedMarkdown(text: string): string {
  return md.render(text);
}

/**
 * A fork's report: its sections (Scope, Result, Key files, Files changed, Verification) as a definition
 * list, each section's text rendered on its own, so a label after a list or an indented report still
 * reads as a section. A report without the labels renders as plain markdown.
 */
export function renderReport(report: string): string {
  const { intro, sections } = splitReport(report);
  if (sections.length === 0) return md.render(report);
  // The labels come from our fixed list, never from the report's text.
  const items = sections.map(s => `<dt>${s.label}</dt>\n<dd>${s.text === '' ? '' : md.render(s.text)}</dd>\n`).join('');
  return `${intro === '' ? '' : md.render(intro)}<dl class="report-sections">\n${items}</dl>\n`;
}

/** Whether the host may offer to open this target (the webview's click sends whatever it found). */
export function isOpenableLink(href: string): boolean {
  return SAFE_LINK.test(href.trim());
}
