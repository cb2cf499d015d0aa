// A fresh git workspace per run, copied from the fixture, opened through a .code-workspace file
// (adding roots later writes into that file, so each run needs its own copy).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SampleWorkspace {
  folder: string;
  workspaceFile: string;
}

export function prepareWorkspace(
  fixtureDir: string,
  parentDir: string,
  settings: Record<string, unknown> = {},
): SampleWorkspace {
  const folder = path.join(parentDir, 'sample-project');
  fs.cpSync(fixtureDir, folder, { recursive: true });
  // Fixed identity and dates: the commit must not depend on the machine's git config.
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Fork Agents Sample',
    GIT_AUTHOR_EMAIL: 'sample@fork-agents.invalid',
    GIT_COMMITTER_NAME: 'Fork Agents Sample',
    GIT_COMMITTER_EMAIL: 'sample@fork-agents.invalid',
    GIT_AUTHOR_DATE: '2025-01-01T12:00:00Z',
    GIT_COMMITTER_DATE: '2025-01-01T12:00:00Z',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, env, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'Initial commit of the sample project');
  const workspaceFile = path.join(parentDir, 'sample-project.code-workspace');
  fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: folder }], settings }, null, 2));
  return { folder, workspaceFile };
}
