// fork-agents chat: one parent turn, streamed to the terminal (or as JSON lines with --json).
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../common/agentEvents';
import { onNotification, onRequest, sendRequest } from '../../common/protocol/endpoint';
import { permissionRequest, sessionCancel, sessionEvent, sessionSend } from '../../common/protocol/runtime';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { approvalOf, connectCli, cwdOf } from '../connect';
import { CliFailure, printJson } from '../output';
import { askOnTerminal } from './terminalApproval';

export async function chatCommand(args: ParsedArgs): Promise<void> {
  const root = cwdOf(args, true)!;
  const prompt = args.positional.join(' ');
  if (prompt.trim() === '') throw new UsageError('chat needs a prompt');
  approvalOf(args);
  const json = args.switches.has('json');
  const client = await connectCli(args, root);
  const turnId = randomUUID();
  let sessionId = args.flags.get('session');
  // Ctrl-C before a new chat's session id is known is kept, and sent as soon as the first event names it.
  let interrupted = false;
  const cancel = () => {
    // Safe to drop: ctrl-C while the runtime is gone: the turn ended with it.
    if (sessionId) sendRequest(client.endpoint, sessionCancel, { sessionId }).catch(() => undefined);
  };
  onNotification(client.endpoint, sessionEvent, params => {
    if (params.turnId !== turnId) return;
    if (!sessionId) {
      sessionId = params.sessionId;
      if (interrupted) cancel();
    }
    render(params.event, json);
  });
  onRequest(client.endpoint, permissionRequest, askOnTerminal);
  const interrupt = () => {
    interrupted = true;
    process.stderr.write('\nfork-agents: stopping the turn (Ctrl-C again to quit at once)\n');
    cancel();
  };
  process.once('SIGINT', interrupt);
  try {
    const result = await sendRequest(client.endpoint, sessionSend, { sessionId, root, prompt, turnId });
    sessionId = result.sessionId;
    if (json) printJson({ type: 'result', sessionId: result.sessionId, stopReason: result.stopReason, text: result.text, usage: result.usage, error: result.error });
    else process.stdout.write(`\nsession: ${result.sessionId}\n`);
    if (result.error) throw new CliFailure(result.error.message);
    if (result.stopReason === 'cancelled') throw new CliFailure('the turn was cancelled (Ctrl-C)');
  } finally {
    process.off('SIGINT', interrupt);
    await client.close();
  }
}

function render(event: AgentEvent, json: boolean): void {
  if (json) {
    if (event.type !== 'entry') printJson(event);
    return;
  }
  switch (event.type) {
    case 'text_delta':
      process.stdout.write(event.text);
      break;
    case 'tool_call':
      process.stderr.write(`\n● ${event.description}\n`);
      break;
    case 'tool_result':
      if (event.isError) process.stderr.write(`  ✗ ${event.summary}\n`);
      break;
    case 'retry':
      process.stderr.write(`  ${event.error.message} — retrying in ${Math.ceil(event.delayMs / 1000)}s\n`);
      break;
    default:
      break;
  }
}
