// The panel's HTML shell, untrusted (docs/design.md §6): a strict CSP with a nonce, nothing remote, nothing inline.
import * as assert from 'node:assert/strict';
import { buildCsp, createNonce, panelHtml } from '../../src/host/panel/html';

const SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

describe('panel: CSP and HTML', () => {
  it('allows only the nonce\'d script, our styles and fonts', () => {
    const csp = buildCsp(SOURCE, 'abc123');
    assert.equal(csp, `default-src 'none'; script-src 'nonce-abc123'; style-src ${SOURCE} 'nonce-abc123'; font-src ${SOURCE}`);
    assert.ok(!/unsafe-inline|unsafe-eval|\*(?!\.)|https?:\s|img-src|connect-src/.test(csp), csp);
  });

  it('accepts a multi-source cspSource but refuses one that could add a directive', () => {
    assert.match(buildCsp(`http://127.0.0.1:8080/ ${SOURCE}`, 'n0nce'), /font-src http:\/\/127\.0\.0\.1:8080\/ https:/);
    assert.throws(() => buildCsp(`${SOURCE}; script-src *`, 'n0nce'), /unexpected webview CSP source/);
    assert.throws(() => buildCsp(SOURCE, "x' 'unsafe-inline"), /nonce must be base64/);
  });

  it('makes a fresh base64 nonce each time', () => {
    const a = createNonce();
    assert.match(a, /^[A-Za-z0-9+/]{24}$/);
    assert.notEqual(a, createNonce());
  });

  it('puts the CSP first, the nonce on the one script, and escapes every attribute', () => {
    const html = panelHtml({ cspSource: SOURCE, nonce: 'N0nce', scriptUri: `${SOURCE}/dist/webview.js?a=1&b="2"`, styleUri: `${SOURCE}/dist/panel.css` });
    const head = html.slice(0, html.indexOf('</head>'));
    assert.ok(head.indexOf('Content-Security-Policy') < head.indexOf('<link'), 'the CSP meta precedes every resource');
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.match(html, /<script nonce="N0nce" src="[^"]+webview\.js\?a=1&amp;b=&quot;2&quot;"><\/script>/);
    assert.ok(!/\son[a-z]+=|style="|javascript:/i.test(html), 'no inline handlers, styles or javascript: URLs');
    assert.ok(!/https?:\/\/(?!file\+\.vscode-resource)/.test(html), 'nothing from anywhere but the webview resource origin');
  });
});
