// A failed UI step's error as the end of a CI log shows it: Playwright's call log cut down to the reasons
// it retried for, what was on screen and the screenshot, and a stack of the test's own frames.
import * as assert from 'node:assert/strict';
import { briefError, describeFailure, stepFailure } from '../e2e/uiDiagnostics';

// The shape of Playwright 1.65's message for a click that timed out on a hidden row (as in the CI failure).
const CLICK_TIMEOUT = [
  'locator.click: Timeout 15000ms exceeded.',
  'Call log:',
  "  - waiting for locator('.quick-input-list .monaco-list-row').filter({ has: locator('.label-name').filter({ hasText: /^View: Show Explorer$/ }) }).first()",
  '    - locator resolved to <div role="option" data-index="0" class="monaco-list-row">…</div>',
  '  - attempting click action',
  '    2 × waiting for element to be visible, enabled and stable',
  '      - element is not visible',
  '    - retrying click action',
  '    - waiting 20ms',
  '    - waiting for element to be visible, enabled and stable',
  '    - element is not stable',
  '    - retrying click action',
  '      - waiting 100ms',
  '    28 × waiting for element to be visible, enabled and stable',
  '       - element is not visible',
  '     - retrying click action',
  '       - waiting 500ms',
].join('\n');

function playwrightError(message: string): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  error.stack = `TimeoutError: ${message}\n    at ClickHelper.click (/repo/node_modules/playwright-core/lib/client/locator.js:1:1)\n` +
    '    at runCommand (out/test/e2e/workbenchUi.js:60:15)\n    at async showExplorer (out/test/e2e/worktreeSupport.js:138:3)\n' +
    '    at async Context.<anonymous> (out/test/e2e/checkpoints.test.js:111:5)';
  return error;
}

describe('UI step failures in a few lines', () => {
  it('keeps Playwright\'s first line and the last distinct reasons of its call log', () => {
    assert.equal(briefError(new Error(CLICK_TIMEOUT)), 'locator.click: Timeout 15000ms exceeded. (last seen: element is not stable; element is not visible)');
    assert.equal(briefError(new Error('the chat input shows "x"')), 'the chat input shows "x"');
    // On a terminal the call log comes in colour.
    assert.equal(briefError(new Error('locator.fill: Timeout 8000ms exceeded.\nCall log:\n\u001b[2m  - element is not visible\u001b[22m\n\u001b[2m     - retrying fill action\u001b[22m\n\u001b[2m       - waiting 500ms\u001b[22m')),
      'locator.fill: Timeout 8000ms exceeded. (last seen: element is not visible)');
    assert.equal(briefError('not an error'), 'not an error');
  });

  it('rewrites a failed test\'s error in place: the reasons, what was on screen, the screenshot and the test\'s frames', () => {
    const error = playwrightError(CLICK_TIMEOUT);
    describeFailure(error, 'quick input closed; focus iframe.webview', '/nowhere/test-results/checkpoints-failed.png');
    assert.equal(error.message, 'locator.click: Timeout 15000ms exceeded. (last seen: element is not stable; element is not visible)\n' +
      '  on screen: quick input closed; focus iframe.webview\n  screenshot: /nowhere/test-results/checkpoints-failed.png');
    assert.deepEqual(error.stack!.split('\n').slice(3), [
      '    at runCommand (out/test/e2e/workbenchUi.js:60:15)',
      '    at async showExplorer (out/test/e2e/worktreeSupport.js:138:3)',
      '    at async Context.<anonymous> (out/test/e2e/checkpoints.test.js:111:5)',
    ]);
  });

  it('leaves a step\'s own failure as it is: it already says what was on screen', () => {
    const step = stepFailure('palette command "View: Show Explorer"', playwrightError(CLICK_TIMEOUT), 'quick input closed', '/nowhere/a.png');
    assert.match(step.message, /^palette command "View: Show Explorer": locator\.click: Timeout 15000ms exceeded\. \(last seen: .*\)\n {2}on screen: quick input closed\n {2}screenshot: /);
    const before = step.message;
    describeFailure(step, 'something else', '/nowhere/b.png');
    assert.equal(step.message, before);
    assert.match(step.stack!, /\n {4}at runCommand \(out\/test\/e2e\/workbenchUi\.js:60:15\)/);
    assert.doesNotMatch(step.stack!, /node_modules/);
  });
});
