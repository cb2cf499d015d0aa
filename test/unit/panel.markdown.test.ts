// Model output is untrusted (docs/design.md §6): what the panel's markdown renderer lets through.
import * as assert from 'node:assert/strict';
import { isOpenableLink, renderUntrustedMarkdown } from '../../src/host/panel/markdown';

describe('panel: markdown of model output', () => {
  it('shows <img onerror> as text, not as an element', () => {
    const html = renderUntrustedMarkdown('Report: <img src=x onerror=alert(1)> end');
    assert.ok(!/<img/i.test(html), html);
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
  });

  it('shows <script> as text, in a paragraph or on its own', () => {
    for (const text of ['<script>alert(1)</script>', 'before\n\n<script>\nalert(1)\n</script>\n\nafter']) {
      const html = renderUntrustedMarkdown(text);
      assert.ok(!/<script/i.test(html), html);
      assert.ok(html.includes('&lt;script&gt;'), html);
    }
  });

  it('escapes HTML inside code, inline and fenced', () => {
    const html = renderUntrustedMarkdown('`<b onmouseover=x>` and\n\n```html\n<iframe src="javascript:alert(1)"></iframe>\n```');
    assert.ok(!/<b |<iframe/i.test(html), html);
  });

  it('leaves javascript:, data: and vbscript: links as plain text', () => {
    for (const target of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html;base64,PHNjcmlwdD4=', 'vbscript:msgbox(1)', 'file:///etc/passwd']) {
      const html = renderUntrustedMarkdown(`[click me](${target})`);
      assert.ok(!/data-href|<a /i.test(html), `${target}: ${html}`);
      assert.ok(html.includes('[click me]('), `${target} shows as its source: ${html}`);
    }
  });

  it('makes http(s) links inert: no href, the target in data-href for the host to confirm', () => {
    const html = renderUntrustedMarkdown('see [the docs](https://example.com/a?b=1&c="2") or <https://example.org>');
    assert.ok(!/\shref=/i.test(html), html);
    assert.match(html, /<a data-href="https:\/\/example\.com\/a\?b=1&amp;c=%222%22" class="md-link" role="link" tabindex="0"/);
    assert.match(html, /data-href="https:\/\/example\.org"/);
  });

  it('neither links bare URLs nor loads images (an image becomes an inert link)', () => {
    const html = renderUntrustedMarkdown('visit https://example.com\n\n![pixel](https://example.com/p.png)');
    assert.ok(!/<img/i.test(html), html);
    assert.match(html, /<p>visit https:\/\/example\.com<\/p>/);
    assert.ok(!/\shref=/.test(html), html);
  });

  it('still renders ordinary markdown', () => {
    const html = renderUntrustedMarkdown('Scope: **parser**\n\n- one\n- `two`');
    assert.match(html, /<strong>parser<\/strong>/);
    assert.match(html, /<li><code>two<\/code><\/li>/);
  });

  it('the host opens only http(s) and mailto targets', () => {
    assert.ok(isOpenableLink('https://example.com'));
    assert.ok(isOpenableLink('mailto:a@example.com'));
    assert.ok(!isOpenableLink('javascript:alert(1)'));
    assert.ok(!isOpenableLink('command:workbench.action.reloadWindow'));
    assert.ok(!isOpenableLink('vscode://file/etc/passwd'));
  });
});
