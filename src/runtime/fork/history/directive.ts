// The fork directive and its boilerplate (docs/design.md §4.4). Constant texts: no ids, no times, so sibling
// forks from one point share their whole prompt prefix up to the directive itself.
import type { Entry, Message } from '../../../common/transcript';

export const FORK_BOILERPLATE_TAG = 'fork-boilerplate';
export const FORK_STARTED_RESULT = 'Fork started — processing in background';
export const NOT_EXECUTED_RESULT = 'Not executed in this fork — the parent owns this call; do not retry it.';
export const NESTED_FORK_ERROR =
  'Cannot fork: you are already a forked worker. Execute your directive directly instead of starting another fork.';

/** `forkRoot` absent: a tournament attempt, whose root rides in its note so the attempts' directives stay identical. */
export interface WorktreeNotice { parentRoot: string; forkRoot?: string }

export function renderDirective(directive: string, worktree?: WorktreeNotice, sandbox?: string[]): string {
  const lines = [
    `<${FORK_BOILERPLATE_TAG}>`,
    'You are a forked worker, not the main agent. The conversation above is inherited from the parent agent.',
    '',
    'Rules:',
    '1. Execute the directive below directly with your tools. Do not fork or start sub-agents.',
    '2. Do not ask questions, converse or suggest next steps; nobody will answer.',
    '3. Stay strictly within the directive\'s scope.',
    '4. Do not write text between tool calls; report once, at the end.',
    '5. Your report must begin with "Scope:" and stay under 500 words, in this form:',
    '   Scope: <your assigned scope in one sentence>',
    '   Result: <the answer or key findings>',
    '   Key files: <relevant paths>',
    '   Files changed: <paths, or none>',
    '   Verification: <what you ran or checked>',
    '   Issues: <only if there are any>',
  ];
  if (worktree) {
    lines.push(
      '',
      'Worktree notice: you work in a separate git worktree.',
      worktree.forkRoot === undefined
        ? `- The parent's root is ${worktree.parentRoot}; yours is named in the attempt note below.`
        : `- The parent's root is ${worktree.parentRoot}; yours is ${worktree.forkRoot}.`,
      '- Translate inherited paths from the parent\'s root to yours.',
      '- Re-read files before editing them: the parent may have changed them since.',
      '- Your changes stay in your worktree; the user reviews and applies them.',
      '- Other forks run beside you: a server you start must listen on $PORT, or on the ports of the block that starts at',
      '  $FORK_AGENTS_PORT_BASE (environment variables of your commands). What your commands leave running ends with you.',
    );
  }
  if (sandbox) lines.push('', ...sandbox);
  lines.push(`</${FORK_BOILERPLATE_TAG}>`, '', `DIRECTIVE: ${directive}`);
  return lines.join('\n');
}

/**
 * What differs per tournament attempt. It rides in its own block after the directive, so the attempts'
 * requests are byte-identical up to and including the directive (the shared, cached prefix) and differ
 * only in this short tail.
 */
export function renderAttemptNote(attempt: number, of: number, hint?: string, forkRoot?: string): string {
  // Short: every attempt pays for this tail uncached.
  const parts = [`Attempt ${attempt} of ${of}; the others do the same directive in their own worktrees and are compared with yours.`];
  if (forkRoot) parts.push(`Your root: ${forkRoot}`);
  if (hint) parts.push(`Approach: ${hint}`);
  return `<fork-attempt>${parts.join('\n')}</fork-attempt>`;
}

/** A session is a fork when any of its user messages carries the boilerplate. */
export function isForkTranscript(entries: readonly Entry[]): boolean {
  return entries.some(entry => entry.message.role === 'user' && hasBoilerplate(entry.message));
}

function hasBoilerplate(message: Message): boolean {
  return message.content.some(block => block.type === 'text' && block.text.includes(`<${FORK_BOILERPLATE_TAG}>`));
}
