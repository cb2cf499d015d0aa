// The session's fixed system prompt and its startup-context entry (docs/design.md §3). Both are rendered
// once when a session starts; forks reuse the exact strings so the cache prefix is shared.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitStatus } from '../git/status';

export function renderSystemPrompt(): string {
  return [
    'You are Fork Agents, a coding agent working inside the user\'s editor workspace.',
    'You read, search and edit files and run shell commands with the tools you are given. Paths are relative',
    'to the workspace root unless absolute; tools refuse paths outside it.',
    '',
    'How to work:',
    '- Look before you change: read the relevant files, search for usages, then make focused edits.',
    '- Prefer edit_file for small changes to existing files; write_file for new files or full rewrites.',
    '- Run the project\'s own checks with bash when you change code, and report what they printed.',
    '- Some tool calls need the user\'s approval; if one is denied, do not retry it: adapt or ask.',
    '- Be concise. Answer in Markdown. Name the files you touched.',
  ].join('\n');
}

const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];
const INSTRUCTION_LIMIT = 20_000;

/** Environment facts wrapped in a system reminder: the session's leading `startup` entry. */
export async function renderStartupContext(root: string, now = new Date()): Promise<string> {
  const lines = [
    `Workspace root: ${root}`,
    `Working directory: ${root}`,
    `Platform: ${os.platform()} ${os.release()}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
  ];
  const status = await gitStatus(root);
  lines.push(status
    ? `Git: branch ${status.branch}, ${status.changed} changed and ${status.untracked} untracked file(s)`
    : 'Git: not a git repository');
  for (const name of INSTRUCTION_FILES) {
    const file = path.join(root, name);
    try {
      const text = fs.readFileSync(file, 'utf8');
      lines.push('', `Contents of ${name} (instructions from the project):`, text.slice(0, INSTRUCTION_LIMIT));
    } catch {
      // No such instruction file: nothing to add.
    }
  }
  return `<system-reminder>\n${lines.join('\n')}\n</system-reminder>`;
}
