import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { approvalAnswer, approvalDetail, approvalMessage } from '../../src/host/approvalText';
import { resolveApiKey, resolveBaseUrl } from '../../src/host/modelAccess';
import { RestartPolicy } from '../../src/host/restartPolicy';
import { findRipgrep } from '../../src/host/ripgrep';

describe('host: model access', () => {
  it('takes the stored key before ANTHROPIC_API_KEY, ignoring blanks', () => {
    assert.equal(resolveApiKey('stored', { ANTHROPIC_API_KEY: 'env' }), 'stored');
    assert.equal(resolveApiKey('  ', { ANTHROPIC_API_KEY: 'env' }), 'env');
    assert.equal(resolveApiKey(undefined, {}), undefined);
  });

  it('takes the setting before ANTHROPIC_BASE_URL', () => {
    assert.equal(resolveBaseUrl('http://a', { ANTHROPIC_BASE_URL: 'http://b' }), 'http://a');
    assert.equal(resolveBaseUrl('', { ANTHROPIC_BASE_URL: 'http://b' }), 'http://b');
    assert.equal(resolveBaseUrl(undefined, {}), undefined);
  });
});

describe('host: approvals', () => {
  it('asks in words and shows the input, long values cut', () => {
    assert.equal(approvalMessage('Run npm test'), '@fork wants to run npm test');
    const detail = approvalDetail({ toolName: 'write_file', category: 'edit', input: { path: 'a.txt', content: 'x'.repeat(1000) } });
    assert.match(detail, /^Tool: write_file \(changes files\)\npath: a\.txt\ncontent: x+… \(600 more characters\)$/);
    assert.match(approvalDetail({ toolName: 'bash', category: 'exec', input: { command: 'ls' } }), /runs a command\)\ncommand: ls$/);
  });

  it('shows the whole command with control characters escaped, so none can hide part of it', () => {
    const command = `echo tests ${'.'.repeat(600)}\ntouch x\rrm -rf ~ \x1b[2K\u202e`;
    const detail = approvalDetail({ toolName: 'bash', category: 'exec', input: { command } });
    assert.equal(detail, `Tool: bash (runs a command)\ncommand: echo tests ${'.'.repeat(600)}\\ntouch x\\rrm -rf ~ \\e[2K\\u202e`);
    assert.equal(approvalMessage('Run a\rb'), '@fork wants to run a\\rb');
  });

  it('maps the choice: Allow, Deny, dismissed = deny with a reason', () => {
    assert.deepEqual(approvalAnswer('Allow'), { approved: true });
    assert.deepEqual(approvalAnswer('Deny'), { approved: false });
    assert.deepEqual(approvalAnswer(undefined), { approved: false, reason: 'the approval prompt was dismissed' });
  });
});

describe('host: restarts and ripgrep', () => {
  it('reconnects after a close but not when the runtime keeps dying', () => {
    const policy = new RestartPolicy(2, 1000);
    assert.equal(policy.shouldRestart(0), true);
    assert.equal(policy.shouldRestart(10), true);
    assert.equal(policy.shouldRestart(20), false);
    assert.equal(policy.shouldRestart(5000), true);
  });

  it("finds VS Code's ripgrep in both layouts", () => {
    const root = path.join('/app');
    const universal = path.join(root, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64', 'rg');
    assert.equal(findRipgrep(root, 'linux', 'x64', f => f === universal), universal);
    const unpacked = path.join(root, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(findRipgrep(root, 'linux', 'x64', f => f === unpacked), unpacked);
    assert.equal(findRipgrep(root, 'linux', 'x64', () => false), undefined);
  });
});
