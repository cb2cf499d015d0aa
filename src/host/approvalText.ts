// What the approval prompt says (issue 2 §4). Pure, so it is tested without an editor.
import type { PermissionParams, PermissionResult } from '../common/protocol/runtime';

export const ALLOW = 'Allow';
export const DENY = 'Deny';

const MAX_VALUE_CHARS = 400;
const MAX_DETAIL_CHARS = 1500;

/** The modal's title line, e.g. "@fork wants to run npm test". */
export function approvalMessage(description: string): string {
  const text = description.trim() || 'use a tool';
  return `@fork wants to ${text[0].toLowerCase()}${text.slice(1)}`;
}

/** The modal's detail: the tool and its input, one `key: value` line each, long values cut. */
export function approvalDetail(params: Pick<PermissionParams, 'toolName' | 'category' | 'input'>): string {
  const lines = [`Tool: ${params.toolName} (${categoryLabel(params.category)})`];
  const input = params.input;
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    for (const [key, value] of Object.entries(input as Record<string, unknown>)) lines.push(`${key}: ${valueText(value)}`);
  } else if (input !== undefined) {
    lines.push(`input: ${valueText(input)}`);
  }
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

function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return cut(text, MAX_VALUE_CHARS);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
