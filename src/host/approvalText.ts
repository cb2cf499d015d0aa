// What the approval prompt says. Pure, so it is tested without an editor.
import { approvalInputLines, escapeControl } from '../common/escapeControl';
import { shortText } from '../common/forkDisplay';
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';

export const ALLOW = 'Allow';
export const DENY = 'Deny';

/** Big enough for any real command: the modal shows the whole input; only absurd inputs are cut. */
const MAX_DETAIL_CHARS = 20_000;
const MAX_VALUE_CHARS = 400;

/** The modal's title line, e.g. "@fork wants to run npm test". */
export function approvalMessage(description: string): string {
  const text = escapeControl(description.trim()) || 'use a tool';
  return `@fork wants to ${text[0].toLowerCase()}${text.slice(1)}`;
}

/**
 * A fork's approval title: who asks (the fork, by its name cut at a word), the tool and its target, e.g.
 * "Fork “add notes” wants to write NOTES.md". The runtime puts the fork's name before the description
 * for surfaces that know no better; here the name is said once.
 */
export function forkApprovalTitle(params: Pick<PermissionParams, 'description'>, forkName: string | undefined): string {
  const prefix = forkName ? `${forkName}: ` : undefined;
  const description = prefix && params.description.startsWith(prefix) ? params.description.slice(prefix.length) : params.description;
  const text = escapeControl(description.trim()) || 'use a tool';
  const who = forkName ? `Fork “${escapeControl(shortText(forkName, 40))}”` : 'A fork';
  return `${who} wants to ${text[0].toLowerCase()}${text.slice(1)}`;
}

/** The modal's detail: the tool and its whole input, one `key: value` line each, control characters escaped. */
export function approvalDetail(params: Pick<PermissionParams, 'toolName' | 'category' | 'input'>): string {
  const lines = [`Tool: ${escapeControl(params.toolName)} (${categoryLabel(params.category)})`, ...approvalInputLines(params.input, MAX_VALUE_CHARS)];
  return cut(lines.join('\n'), MAX_DETAIL_CHARS);
}

/** The button the user picked (undefined: the modal was dismissed) as the runtime's answer. */
export function approvalAnswer(choice: string | undefined): PermissionResult {
  if (choice === ALLOW) return { approved: true };
  if (choice === DENY) return { approved: false };
  return { approved: false, reason: 'the approval prompt was dismissed' };
}

function categoryLabel(category: string): string {
  return category === 'exec' ? 'runs a command' : category === 'edit' ? 'changes files' : 'reads files';
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
