// Files that git, the editor or common tools run are not ordinary edits: under auto-edit, writing a hook in
// core.hooksPath, .vscode/tasks.json, settings.json, mcp.json, .devcontainer/, .envrc or .gitattributes asks
// at exec level, and denied, nothing is written. The hook test shows first that git really runs it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gitSync, initRepo, toolRuns } from './gitRepo';
import { useSharedHarness } from './harness';
import { call, say } from './script';

const EXEC_FILES = [
  '.husky/pre-commit', '.vscode/tasks.json', '.vscode/settings.json', '.vscode/mcp.json', '.devcontainer/devcontainer.json',
  '.envrc', '.gitattributes', 'sub/../.VSCODE/Tasks.json',
];

describe('runtime: writes to files that run (auto-edit)', function () {
  this.timeout(60_000);
  const h = useSharedHarness({ config: { approvalMode: 'auto-edit' } });
  let repo: string;

  beforeEach(async () => {
    repo = fs.realpathSync(h.root);
    initRepo(repo, { 'a.txt': 'a\n' });
    gitSync(repo, 'config', 'core.hooksPath', '.husky');
  });

  it('each asks as a command does; denied, none is written, and an ordinary file is written without asking', async () => {
    // The hook is live: git runs what is in core.hooksPath at the next commit.
    const marker = path.join(path.dirname(repo), 'hook-ran');
    fs.mkdirSync(path.join(repo, '.husky'));
    fs.writeFileSync(path.join(repo, '.husky', 'pre-commit'), `#!/bin/sh\necho ran >> ${marker}\n`, { mode: 0o755 });
    gitSync(repo, 'commit', '-q', '--allow-empty', '-m', 'probe');
    assert.ok(fs.existsSync(marker), 'git ran the hook');
    const hookBefore = fs.readFileSync(path.join(repo, '.husky', 'pre-commit'), 'utf8');

    h.answerApproval = () => ({ approved: false });
    h.fake.enqueue(
      call(...EXEC_FILES.map((file): [string, unknown] => ['write_file', { path: file, content: '{"evil": true}\n' }]), ['write_file', { path: 'notes.md', content: 'fine\n' }]),
      say('done'),
    );
    const result = await h.send('set things up');
    assert.deepEqual(h.approvals.map(a => a.category), EXEC_FILES.map(() => 'exec'), 'every one asked at exec level; the plain write did not ask');
    const runs = toolRuns((await h.transcript(result.sessionId)).entries);
    assert.deepEqual(runs.map(r => r.isError), [...EXEC_FILES.map(() => true), false]);
    assert.equal(fs.readFileSync(path.join(repo, '.husky', 'pre-commit'), 'utf8'), hookBefore);
    for (const file of EXEC_FILES.slice(1)) assert.equal(fs.existsSync(path.join(repo, file)), false, `${file} was not written`);
    assert.equal(fs.readFileSync(path.join(repo, 'notes.md'), 'utf8'), 'fine\n');
  });

  it('approved as a command, the write happens', async () => {
    h.answerApproval = () => ({ approved: true });
    h.fake.enqueue(call(['write_file', { path: '.vscode/tasks.json', content: '{}\n' }]), say('done'));
    await h.send('write the tasks');
    assert.deepEqual(h.approvals.map(a => a.category), ['exec']);
    assert.equal(fs.readFileSync(path.join(repo, '.vscode', 'tasks.json'), 'utf8'), '{}\n');
  });
});
