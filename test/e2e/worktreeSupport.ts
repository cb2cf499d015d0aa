// Support for the worktree UI checks: a scripted fork that writes a file and then waits for
// the test to let it finish (so "it survives the reload" is not a race), the manifest entries of the
// worktree commands, and small git / Explorer helpers.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { ReceivedRequest, Responder, ScriptedTurn } from '../fakes/anthropicServer';
import { demoResponder } from '../fakes/demoScript';
import { runCommand, uiStep } from './workbenchUi';

/** What package.json contributes for worktree forks (the same JSON as in the merge request). */
export const WORKTREE_CONTRIBUTIONS = {
  commands: [
    { command: 'forkAgents.reviewFork', title: 'Review Fork Changes', category: 'Fork', icon: '$(diff)' },
    { command: 'forkAgents.applyFork', title: 'Apply Fork Changes', category: 'Fork', icon: '$(check-all)' },
    { command: 'forkAgents.keepFork', title: 'Keep Fork Branch', category: 'Fork', icon: '$(git-branch)' },
    { command: 'forkAgents.discardFork', title: 'Discard Fork Worktree', category: 'Fork', icon: '$(trash)' },
  ],
  configuration: {
    'fork.worktreeRoot': {
      type: 'string',
      default: '',
      markdownDescription:
        'Folder for the git worktrees of forks (isolation `worktree`). Empty: beside the repository, in `../.fork-agents-worktrees/<repository>`. ' +
        'A relative path is taken from the top of the repository; the folder must be outside the repository.',
    },
  },
};

/** Until the manifest is merged: adds the entries to the installed copy (a no-op once they are there). */
export function addWorktreeContributions(extensionsDir: string): string[] {
  const dir = fs.readdirSync(extensionsDir).find(name => name.startsWith('fork-agents.fork-agents-'));
  if (!dir) throw new Error(`the extension is not installed in ${extensionsDir}`);
  const file = path.join(extensionsDir, dir, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { contributes: { commands: { command: string }[]; configuration: { properties: Record<string, unknown> } } };
  const added: string[] = [];
  for (const command of WORKTREE_CONTRIBUTIONS.commands) {
    if (manifest.contributes.commands.some(c => c.command === command.command)) continue;
    manifest.contributes.commands.push(command);
    added.push(command.command);
  }
  for (const [key, schema] of Object.entries(WORKTREE_CONTRIBUTIONS.configuration)) {
    if (key in manifest.contributes.configuration.properties) continue;
    manifest.contributes.configuration.properties[key] = schema;
    added.push(key);
  }
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
  return added;
}

/** Opened by the test: until then a fork's last turn (its report) is held back. */
export class Gate {
  private open!: () => void;
  readonly opened = new Promise<void>(resolve => (this.open = resolve));
  release(): void {
    this.open();
  }
}

interface Block { type: string; text?: string }
interface Msg { role: string; content: string | Block[] }
const blocks = (m: Msg): Block[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);

/**
 * Chat turns go to the demo model. A fork told to "write <file>" writes it with write_file, then waits
 * for `gate` before it reports; one told to "read <file>" reads it with read_file and reports; any
 * other fork waits for `gate` and reports.
 */
export function worktreeResponder(gate: () => Gate): Responder {
  const demo = demoResponder();
  return async (req: ReceivedRequest): Promise<ScriptedTurn> => {
    const messages = (req.body as { messages?: Msg[] } | undefined)?.messages ?? [];
    let at = messages.length - 1;
    while (at >= 0 && !(messages[at].role === 'user' && blocks(messages[at]).some(b => b.text?.includes('<fork-boilerplate>')))) at--;
    if (at < 0) return demo(req) as ScriptedTurn;
    const text = blocks(messages[at]).find(b => b.text?.includes('<fork-boilerplate>'))?.text ?? '';
    const directive = /DIRECTIVE: ([\s\S]*)$/.exec(text)?.[1].trim() ?? '';
    const write = /\bwrite\s+([\w./-]+)/i.exec(directive);
    const read = /\bread\s+([\w./-]+)/i.exec(directive);
    const answered = messages.slice(at + 1).some(m => m.role === 'user' && blocks(m).some(b => b.type === 'tool_result'));
    if (write && !answered) {
      return { content: [{ type: 'text', text: `Writing ${write[1]}.` }, { type: 'tool_use', name: 'write_file', input: { path: write[1], content: 'Notes written by a fork in its own worktree.\n' } }] };
    }
    if (read && !answered) return { content: [{ type: 'text', text: `Reading ${read[1]}.` }, { type: 'tool_use', name: 'read_file', input: { path: read[1] } }] };
    // A fork that only reads reports at once: nothing of it waits for the test.
    // Its report in the shapes models write: a list under a label, a bold label, an indented one, a heading.
    if (read) return { content: [{ type: 'text', text: READER_REPORT(directive) }], stop_reason: 'end_turn' };
    await gate().opened;
    return { content: [{ type: 'text', text: `Scope: ${directive}.\nResult: done.\nFiles changed: ${write ? write[1] : 'none'}` }], stop_reason: 'end_turn' };
  };
}

export const READER_REPORT = (directive: string) =>
  `Scope: ${directive}.\nResult:\n- read it\n- nothing to change\n**Key files:** README.md\n    Files changed: none\n## Verification\nread the file back`;

/** User settings of the run (read when the window loads). */
export function setUserSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const file = path.join(userDataDir, 'User', 'settings.json');
  const current = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2));
}

/** `git worktree list --porcelain`: the worktree paths of the repository. */
export function gitWorktrees(repo: string): string[] {
  const out = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
  return out.split('\n').filter(line => line.startsWith('worktree ')).map(line => line.slice('worktree '.length));
}

export function gitBranches(repo: string): string[] {
  return execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** The Explorer's row of a workspace root, by its folder name. */
export function explorerRoot(page: Page, name: string): Locator {
  return page.locator('.explorer-folders-view .monaco-list-row', { hasText: name });
}

export async function showExplorer(page: Page): Promise<void> {
  await runCommand(page, 'View: Show Explorer', { shows: page.locator('.explorer-folders-view'), repeatable: true });
}

/** Runs a palette command that then asks with a quick pick, and picks the row showing `row`. */
export async function runCommandAndPick(page: Page, title: string, placeholder: string, row: string): Promise<void> {
  // The same widget comes back with the command's own quick pick.
  await runCommand(page, title, { shows: page.locator(`.quick-input-widget input[placeholder="${placeholder}"]`) });
  await uiStep(page, `picking "${row}" in "${placeholder}"`, async () => {
    await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().click({ timeout: 15_000 });
    await page.locator('.quick-input-widget input').waitFor({ state: 'hidden', timeout: 15_000 });
  });
}
