// A tournament attempt's verify command, run in its worktree when the attempt ends. It is a command the
// fork runs like any other: the bash tool with the fork's root, environment and process tracking, and the
// same approval (asked in `ask` and `auto-edit`, refused in Restricted Mode by the policy's callback).
import type { ApprovalMode } from '../../../common/approval';
import { needsApproval } from '../../../common/approval';
import type { VerifyResult } from '../../../common/tournament';
import type { ApprovalRequest } from '../../agent/loop';
import { BASH_MAX_TIMEOUT_MS, bashTool } from '../../tools/bash';
import type { ToolContext } from '../../tools/types';

/** What the compare view and the judge see of the output: its end, where test runners print the summary. */
export const VERIFY_TAIL_CHARS = 4_000;

export interface VerifyDeps {
  approvalMode: ApprovalMode;
  approve(request: ApprovalRequest): Promise<{ approved: boolean; reason?: string }>;
  toolContext: ToolContext;
}

export async function runVerify(command: string, deps: VerifyDeps): Promise<VerifyResult> {
  const started = Date.now();
  const input = { command, timeout_ms: BASH_MAX_TIMEOUT_MS };
  const notRun = (note: string): VerifyResult => ({ command, exitCode: null, passed: false, outputTail: '', durationMs: Date.now() - started, note });
  if (needsApproval(deps.approvalMode, 'exec')) {
    const answer = await deps.approve({ callId: 'verify', tool: bashTool, input, description: `Verify: ${command}`, category: 'exec' })
      .catch(error => ({ approved: false, reason: error instanceof Error ? error.message : String(error) }));
    if (!answer.approved) return notRun(`not run: ${answer.reason ?? 'the command was not approved'}`);
  }
  if (deps.toolContext.signal.aborted) return notRun('not run: the attempt was stopped');
  const output = await bashTool.run(input, deps.toolContext);
  const exitCode = output.exitCode ?? null;
  const tail = output.content.length > VERIFY_TAIL_CHARS ? output.content.slice(-VERIFY_TAIL_CHARS) : output.content;
  return {
    command, exitCode, passed: exitCode === 0, outputTail: tail, durationMs: Date.now() - started,
    ...(exitCode === null ? { note: deps.toolContext.signal.aborted ? 'stopped' : 'timed out or killed' } : {}),
  };
}
