// The fork.worktree.* settings in the manifest. What runs code (setup) or decides what runs
// (its timeout, the ports handed to commands) is application scope: a repository's settings cannot set it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } };
  dependencies: Record<string, string>;
};
const settings = manifest.contributes.configuration.properties;

describe('manifest: worktree settings', () => {
  it('declares every fork.worktree.* setting the host reads, with its scope', () => {
    const scopes = Object.fromEntries(Object.entries(settings).filter(([key]) => key.startsWith('fork.worktree.')).map(([key, value]) => [key, value.scope]));
    assert.deepEqual(scopes, {
      'fork.worktree.addToWorkspace': 'window',
      'fork.worktree.include': 'resource',
      'fork.worktree.link': 'resource',
      'fork.worktree.copyMode': 'resource',
      'fork.worktree.setup': 'application',
      'fork.worktree.setupTimeout': 'application',
      'fork.worktree.ports': 'application',
      'fork.worktree.portBlock': 'application',
    });
  });

  it('copies and links nothing and runs nothing by default', () => {
    assert.deepEqual(settings['fork.worktree.include'].default, []);
    assert.deepEqual(settings['fork.worktree.link'].default, []);
    assert.deepEqual(settings['fork.worktree.setup'].default, []);
  });

  it('depends on the ignore package for .worktreeinclude (gitignore syntax)', () => {
    assert.ok(manifest.dependencies.ignore);
  });
});
