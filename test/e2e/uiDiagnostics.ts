// What a failed UI step leaves behind, short enough to read in the last lines of a CI log: what was
// being done, the reason Playwright gave (its call log reduced to the reasons it retried for), what was on
// screen (dialogs, toasts, the quick input and its rows, an open menu, where the focus was) and the
// screenshot taken at that moment.
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from '../../scripts/e2e/tools';

// Runs in the page; a string because this project's tsconfig has no DOM lib (the page is not our code).
const ON_SCREEN = `(() => {
  const shown = el => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const text = (el, max) => {
    const t = (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
    return t.length > max ? t.slice(0, max - 1) + '…' : t;
  };
  const parts = [];
  for (const box of document.querySelectorAll('.monaco-dialog-box')) if (shown(box)) parts.push('dialog "' + text(box, 120) + '"');
  const toasts = [...document.querySelectorAll('.notification-toast')].filter(shown)
    .map(t => '"' + text(t.querySelector('.notification-list-item-message') || t, 70) + '"');
  if (toasts.length) parts.push('toasts ' + toasts.join(', '));
  const quick = document.querySelector('.quick-input-widget');
  if (shown(quick)) {
    const input = quick.querySelector('input');
    const title = quick.querySelector('.quick-input-title');
    const rows = [...quick.querySelectorAll('.quick-input-list .monaco-list-row')].filter(shown)
      .slice(0, 4).map(r => text(r.querySelector('.label-name') || r, 40));
    parts.push('quick input' + (title && text(title, 40) ? ' "' + text(title, 40) + '"' : '') + ' holding "' + (input ? input.value : '') + '"' +
      (rows.length ? ', rows: ' + rows.join(' | ') : ', no rows'));
  } else {
    parts.push('quick input closed');
  }
  const menu = document.querySelector('.context-view .monaco-menu');
  if (shown(menu)) parts.push('menu "' + text(menu, 60) + '"');
  const active = document.activeElement;
  if (active && active !== document.body) {
    const pane = active.closest('.pane');
    const header = pane && pane.querySelector('.pane-header .title');
    const part = active.closest('.part');
    const where = header ? text(header, 30) : part ? (part.id || part.className.split(' ').slice(0, 2).join('.')) : '';
    parts.push('focus ' + active.tagName.toLowerCase() + (active.className && typeof active.className === 'string' ? '.' + active.className.split(' ')[0] : '') + (where ? ' in ' + where : ''));
  } else {
    parts.push('focus nowhere');
  }
  return parts.join('; ');
})()`;

/** One line: what the workbench shows now (never throws; a page that does not answer says so). */
export async function onScreen(page: Page): Promise<string> {
  if (page.isClosed()) return 'the page is closed';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>(resolve => (timer = setTimeout(() => resolve('the page did not answer within 3 s'), 3_000)));
  try {
    return await Promise.race([page.evaluate(ON_SCREEN) as Promise<string>, late]);
  } catch (error) {
    return `the page could not be read (${firstLine(error)})`;
  } finally {
    clearTimeout(timer);
  }
}

/** Playwright's message without its call log, plus the last distinct reasons the log gives for retrying. */
export function briefError(error: unknown): string {
  // Playwright colours its call log on a terminal.
  const text = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
  const [head, log = ''] = text.split(/\n\s*Call log:\s*\n/);
  const noise = /^(waiting \d+ms|retrying \w+ action.*|attempting \w+ action|waiting for element to be visible, enabled and stable|\d+ × .*waiting for element.*|scrolling into view if needed|done scrolling)$/;
  const reasons: string[] = [];
  for (const raw of log.split('\n')) {
    const line = raw.trim().replace(/^- /, '');
    if (!line || noise.test(line) || line.startsWith('waiting for locator') || line.startsWith('locator resolved to')) continue;
    const seen = reasons.indexOf(line);
    if (seen >= 0) reasons.splice(seen, 1);
    reasons.push(line);
  }
  const last = reasons.slice(-2).map(r => (r.length > 160 ? `${r.slice(0, 159)}…` : r));
  const first = head.split('\n')[0].trim();
  return last.length ? `${first} (last seen: ${last.join('; ')})` : first;
}

/** The error to throw when a step failed: what was on screen, the screenshot, a short stack. */
export function stepFailure(what: string, error: unknown, screen: string, shot: string): Error {
  const failure = new Error(`${what}: ${briefError(error)}\n  on screen: ${screen}\n  screenshot: ${relative(shot)}`);
  failure.name = STEP_FAILURE;
  failure.stack = `${failure.name}: ${failure.message}\n${testFrames(error instanceof Error ? error.stack : undefined, failure.stack)}`;
  return failure;
}

export const STEP_FAILURE = 'UiStepError';

/**
 * Shortens a failed test's error in place (mocha prints it again at the end of the run, which is what a CI
 * log's tail holds): Playwright's call log is cut down to its reasons, and what was on screen and the
 * screenshot are added unless a step already said them.
 */
export function describeFailure(error: Error | undefined, screen: string, shot: string): void {
  if (!error || error.name === STEP_FAILURE) return;
  const message = `${briefError(error)}\n  on screen: ${screen}\n  screenshot: ${relative(shot)}`;
  const frames = testFrames(error.stack, undefined);
  error.message = message;
  error.stack = `${error.name}: ${message}\n${frames}`;
}

/** At most four frames, ours first (Playwright's and node's own say nothing about which step failed). */
function testFrames(...stacks: (string | undefined)[]): string {
  for (const stack of stacks) {
    const frames = (stack ?? '').split('\n').filter(line => /^\s+at\s/.test(line));
    const ours = frames.filter(line => !/node_modules|node:internal|\(node:/.test(line) && !line.includes('uiDiagnostics'));
    if (ours.length) return ours.slice(0, 4).join('\n');
  }
  return '    at (no stack)';
}

/** Inside the repository, from its top (test-results/…); elsewhere as it is. */
function relative(file: string): string {
  const inside = path.relative(repoRoot(), file);
  return inside && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : file;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}
