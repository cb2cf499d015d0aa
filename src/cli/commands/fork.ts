// fork-agents fork / send: start a fork of a session, or continue a finished fork; --wait for the report.
import type { AgentEvent } from '../../common/agentEvents';
import { parseForkTurns } from '../../common/forkTurns';
import type { ForkSummary } from '../../common/forks';
import { onNotification, onRequest, sendRequest } from '../../common/protocol/endpoint';
import { permissionRequest } from '../../common/protocol/runtime';
import { forkEvent, forkSend, forkStart, forkWait } from '../../common/protocol/forks';
import type { RuntimeClient } from '../../client/rpcClient';
import { UsageError } from '../args';
import type { ParsedArgs } from '../args';
import { approvalOf, cliGivesAccess, connectCli } from '../connect';
import type { ApprovalMode } from '../../common/approval';
import { CliFailure, printJson } from '../output';
import { parseBudget } from '../../common/budget';
import { coldCacheText, modelIdProblem } from '../../common/modelChoice';
import { stateLabel } from '../../common/forkDisplay';
import { cacheEffectText, noPriceText, usdText } from '../../common/pricing';
import { isTournament, tournamentCommand } from './tournament';
import { askOnTerminal, terminalCanAsk } from './terminalApproval';

/** --budget as the runtime takes it, checked here so a typo exits 2 before anything starts. */
function budgetFlag(args: ParsedArgs): string | undefined {
  const value = args.flags.get('budget');
  if (value === undefined) return undefined;
  const parsed = parseBudget(value);
  if (!parsed.ok) throw new UsageError(`--budget: ${parsed.error}`);
  return value;
}

export function costText(fork: ForkSummary): string {
  // No model turn (queued, or refused before any answer: a rejected key): nothing was billed, whatever the price.
  if (!fork.cost && fork.modelTurns === 0) return 'cost $0 (no model turns)';
  if (!fork.cost) return `cost: ${noPriceText(fork.model, 'cli')}`;
  return `cost ${usdText(fork.cost.usd)} (uncached ${usdText(fork.cost.uncachedUsd)}, ${cacheEffectText(fork.cost, { form: 'clause' })})`;
}

export async function forkCommand(args: ParsedArgs): Promise<void> {
  const sessionId = args.flags.get('session');
  if (!sessionId) throw new UsageError('fork needs --session ID');
  const directive = args.positional.join(' ');
  if (directive.trim() === '') throw new UsageError('fork needs a directive');
  const turns = parseForkTurns(args.flags.get('turns'), 'user');
  if (!turns.ok) throw new UsageError(`--turns: ${turns.error}`);
  const isolation = args.flags.get('isolation');
  if (isolation !== undefined && isolation !== 'shared' && isolation !== 'worktree') throw new UsageError('--isolation must be worktree or shared');
  const budget = budgetFlag(args);
  if (isTournament(args)) return tournamentCommand(args, sessionId, directive, budget);
  const model = args.flags.get('model');
  const modelProblem = model === undefined ? undefined : modelIdProblem(model);
  if (modelProblem) throw new UsageError(`--model: ${modelProblem}`);
  // The session's MCP servers again (a runtime restarted since its chat has none): the fork calls them too.
  const client = await connectCli(args, { sessionId });
  try {
    const fork = await sendRequest(client.endpoint, forkStart, {
      sessionId, directive, forkTurns: args.flags.get('turns'), atEntryId: args.flags.get('at'), isolation, budget, model,
    });
    if (fork.parentModel && !args.switches.has('json')) process.stderr.write(`note: ${coldCacheText(fork.model ?? model ?? '', fork.parentModel)}\n`);
    // Once it started (a refused start keeps its one-line reason). Without --approval the fork has its chat's mode.
    noteWhoAnswers(fork.approvalMode, args);
    await finish(client, fork, args);
  } finally {
    await client.close();
  }
}

export async function sendCommand(args: ParsedArgs): Promise<void> {
  const forkId = args.flags.get('fork');
  if (!forkId) throw new UsageError('send needs --fork ID');
  const message = args.positional.join(' ');
  const budget = budgetFlag(args);
  if (message.trim() === '' && budget === undefined) throw new UsageError('send needs a message (or --budget to continue a fork paused at its budget)');
  const loosen = args.switches.has('loosen-approval');
  const client = await connectCli(args, { sessionId: forkId });
  try {
    const sent = await sendRequest(client.endpoint, forkSend, {
      forkId, message: message.trim() === '' ? undefined : message, budget, loosenApproval: loosen || undefined,
    });
    const asked = args.flags.has('approval') ? approvalOf(args) : undefined;
    if (asked && sent.approvalMode && asked !== sent.approvalMode && !args.switches.has('json')) {
      // The runtime keeps a fork's last access when this command gave it none (no key): nothing of ours applies.
      process.stderr.write(loosen || !cliGivesAccess(args)
        ? `note: --approval ${asked} was not applied: this command gave the runtime no key (ANTHROPIC_API_KEY, or --demo for the demo model), so fork ${forkId} continues with the access it last ran with (${sent.approvalMode}).\n`
        : `note: fork ${forkId} continues in ${sent.approvalMode}, the mode it was launched with, not ${asked}; --loosen-approval confirms a looser one.\n`);
    }
    noteWhoAnswers(sent.approvalMode, args);
    await finish(client, sent, args);
  } finally {
    await client.close();
  }
}

/** A fork in `ask` whose approvals nobody here answers waits, then is refused: said before that happens. */
function noteWhoAnswers(mode: ApprovalMode | undefined, args: ParsedArgs): void {
  const answersHere = args.switches.has('wait') && terminalCanAsk();
  if ((mode ?? 'ask') !== 'ask' || answersHere || args.switches.has('json')) return;
  process.stderr.write(
    'note: this fork asks before it edits files or runs commands; VS Code with Fork Agents open, or this terminal with\n' +
    '      --wait, can answer; without either its requests are refused after a while. Use --approval auto-edit to allow\n' +
    '      file edits, or --approval auto to allow commands too.\n',
  );
}

async function finish(client: RuntimeClient, fork: ForkSummary, args: ParsedArgs): Promise<void> {
  const json = args.switches.has('json');
  if (!args.switches.has('wait')) {
    if (json) printJson({ type: 'result', forkId: fork.id, state: fork.state, model: fork.model, ...(fork.parentModel ? { parentModel: fork.parentModel } : {}) });
    else process.stdout.write(`${fork.id}\n`);
    return;
  }
  if (!json) process.stderr.write(`fork ${fork.id} started; waiting for its report…\n`);
  onNotification(client.endpoint, forkEvent, params => {
    if (params.forkId !== fork.id) return;
    if (json && params.event.type !== 'entry') printJson({ forkId: fork.id, ...params.event });
    else if (!json) writeProgress(params.event);
  });
  // On a terminal its approvals are asked here, as chat asks; without one a connected editor answers, else
  // they are refused after the bounded wait (docs/design.md §9).
  const answerApprovals = terminalCanAsk();
  if (answerApprovals) onRequest(client.endpoint, permissionRequest, askOnTerminal);
  const done = await sendRequest(client.endpoint, forkWait, { forkId: fork.id, ...(answerApprovals ? { answerApprovals } : {}) });
  if (json) {
    printJson({
      type: 'result', forkId: done.id, state: done.state, report: done.report, error: done.error, usage: done.usage, modelTurns: done.modelTurns,
      cost: done.cost, budget: done.budget, pausedReason: done.pausedReason, model: done.model, ...(done.parentModel ? { parentModel: done.parentModel } : {}),
    });
  } else {
    process.stdout.write(`${done.report ?? ''}\n\nfork: ${done.id} (${stateLabel(done.state)}) · ${costText(done)}\n`);
  }
  if (done.state === 'paused-budget') throw new CliFailure(`${done.pausedReason ?? 'paused at its budget'} Continue: fork-agents send --fork ${done.id} --budget …`);
  if (done.state !== 'completed') throw new CliFailure(done.error ?? `fork ${done.state}`);
}

/** Tool calls and the worktree's setup (command, its output as it comes, how it ended), on stderr. */
function writeProgress(event: AgentEvent): void {
  if (event.type === 'tool_call') process.stderr.write(`● ${event.description}\n`);
  else if (event.type === 'setup_start') process.stderr.write(`● setup: ${event.command}\n`);
  else if (event.type === 'setup_output') process.stderr.write(event.text);
  else if (event.type === 'setup_end') {
    const how = event.timedOut ? 'timed out' : `exit code ${event.exitCode ?? 'none (killed)'}`;
    process.stderr.write(`● setup ${event.command}: ${how} after ${(event.durationMs / 1000).toFixed(1)} s\n`);
  }
}
