// Real git repositories in temp folders, and fork scripting, for the worktree tests.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Entry, ToolResultBlock, ToolUseBlock } from '../../src/common/transcript';
import type { ReceivedRequest, ScriptedTurn } from '../fakes/anthropicServer';
import type { Harness } from './harness';
import { say } from './script';

export function gitSync(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository with a local identity and one commit of `files`. */
export function initRepo(dir: string, files: Record<string, string>): void {
  gitSync(dir, 'init', '-q', '-b', 'main');
  gitSync(dir, 'config', 'user.name', 'Test User');
  gitSync(dir, 'config', 'user.email', 'test@example.invalid');
  gitSync(dir, 'config', 'commit.gpgsign', 'false');
  for (const [name, content] of Object.entries(files)) write(dir, name, content);
  gitSync(dir, 'add', '-A');
  gitSync(dir, 'commit', '-q', '-m', 'initial');
}

/**
 * A new temp folder `base` (its real path: git and the watcher report real paths) holding `repo`, a
 * repository of `files` (initRepo). The caller removes `base`.
 */
export function tempRepo(prefix: string, files: Record<string, string>): { base: string; repo: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const repo = path.join(base, 'repo');
  fs.mkdirSync(repo);
  initRepo(repo, files);
  return { base, repo };
}

/** Commits a `.gitignore` of `patterns` on top: files it matches that are committed already stay tracked. */
export function commitGitignore(repo: string, patterns: string): void {
  write(repo, '.gitignore', patterns);
  gitSync(repo, 'add', '.gitignore');
  gitSync(repo, 'commit', '-q', '-m', 'ignores');
}

export function write(dir: string, name: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), content);
}

export function read(dir: string, name: string): string {
  return fs.readFileSync(path.join(dir, name), 'utf8');
}

/** Paths of `git worktree list --porcelain`. */
export function worktreePaths(repo: string): string[] {
  return gitSync(repo, 'worktree', 'list', '--porcelain').split('\n').filter(l => l.startsWith('worktree ')).map(l => l.slice('worktree '.length));
}

export function forkBranches(repo: string): string[] {
  return gitSync(repo, 'branch', '--list', 'fork/*', '--format=%(refname:short)').split('\n').filter(Boolean);
}

export interface ToolRun { name: string; input: Record<string, unknown>; content: string; isError: boolean }

/** Every tool call of a transcript with its result, in order. */
export function toolRuns(entries: readonly Entry[]): ToolRun[] {
  const calls = new Map<string, ToolUseBlock>();
  const runs: ToolRun[] = [];
  for (const entry of entries) {
    for (const block of entry.message.content) {
      if (block.type === 'tool_use') calls.set(block.id, block);
      if (block.type !== 'tool_result') continue;
      const call = calls.get((block as ToolResultBlock).tool_use_id);
      if (!call) continue;
      const content = typeof block.content === 'string' ? block.content : block.content.map(b => (b.type === 'text' ? b.text : '')).join('');
      runs.push({ name: call.name, input: call.input as Record<string, unknown>, content, isError: block.is_error === true });
    }
  }
  return runs;
}

export const isForkRequest = (r: ReceivedRequest): boolean => r.rawBody.includes('<fork-boilerplate>');

/** Scripted turns per fork, keyed by a word of its directive; unscripted turns end with a report. */
export function scriptForks(h: Harness, parent: ScriptedTurn[] = []): Map<string, ScriptedTurn[]> {
  const scripts = new Map<string, ScriptedTurn[]>();
  h.fake.setResponder(r => {
    if (!isForkRequest(r)) return parent.shift() ?? say('parent: ok');
    const key = [...scripts.keys()].find(k => r.rawBody.includes(`DIRECTIVE: ${k}`));
    return (key && scripts.get(key)!.shift()) || say('Scope: scripted.\nResult: done.');
  });
  return scripts;
}
