// The Forks panel's HTML shell: a strict CSP — nothing loads but our own script (by nonce)
// and our stylesheet and codicon font (from the webview's resource origin); no inline handlers, no
// remote anything, no images. Pure: unit-tested without an editor.
import { randomBytes } from 'node:crypto';

export function createNonce(): string {
  // 18 bytes: 24 base64 characters, no padding.
  return randomBytes(18).toString('base64');
}

export function buildCsp(cspSource: string, nonce: string): string {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(nonce)) throw new Error('a CSP nonce must be base64');
  // One or more space-separated sources; a ';' or line break would smuggle in a directive of its own.
  if (/[;,\r\n"]/.test(cspSource) || cspSource.trim() === '') throw new Error(`unexpected webview CSP source ${JSON.stringify(cspSource)}`);
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
  ].join('; ');
}

export interface PanelHtmlOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function panelHtml(options: PanelHtmlOptions): string {
  const attr = escapeAttribute;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(buildCsp(options.cspSource, options.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(options.styleUri)}" nonce="${attr(options.nonce)}">
<title>Forks</title>
</head>
<body>
<div id="app" aria-busy="true"></div>
<script nonce="${attr(options.nonce)}" src="${attr(options.scriptUri)}"></script>
</body>
</html>`;
}

export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
