// A small deterministic "model" for the demo and the e2e runs. It follows plain instructions with the real
// tools (demoPlan.ts: list, read, search, create/write, edit, run, fork / in parallel), one tool call per
// response, then answers from what the tools returned. Inside a fork (its prompt carries the fork
// boilerplate) it works on the directive and reports in the boilerplate's form (Scope: / Result: / …).
// It decides from the conversation alone, so forks and revived sessions behave the same, and it says it is
// a demo: it never pretends to be a real model.
import { isPureReminderText } from '../../src/common/transcript';
import type { Responder, ScriptedTurn } from './anthropicServer';
import { DEMO_VERBS, planFor } from './demoPlan';
import { shortText } from '../../src/common/forkDisplay';
import type { Step } from './demoPlan';

interface Block { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean }
interface Msg { role: string; content: string | Block[] }
export interface Outcome { step: Step; text: string; isError: boolean }

const BOILERPLATE = '<fork-boilerplate>';
const NOTIFICATION = /<fork-notification>\s*Fork "([^"]*)" \(([^)]*)\) ([^\n]*?) after/g;

export function demoResponder(): Responder {
  return req => demoTurn(req.body as { messages: Msg[]; tools?: { name: string }[] });
}

function blocksOf(message: Msg): Block[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The user's words in a message: text blocks that are not pure system reminders. */
function promptText(message: Msg): string {
  if (message.role !== 'user') return '';
  return blocksOf(message)
    .filter(b => b.type === 'text' && typeof b.text === 'string' && !isPureReminderText(b.text))
    .map(b => (b.text as string).trim())
    .join('\n')
    .trim();
}

function directiveOf(prompt: string): string {
  // A tournament attempt's note (or the judge's prompt) follows the directive in its own block.
  const directive = /\bDIRECTIVE:\s*([\s\S]*?)(?:<fork-attempt>|<fork-judge>|$)/.exec(prompt);
  return directive ? directive[1].trim() : prompt;
}

/** A tournament attempt's number (1 when the prompt is no attempt's). */
function attemptOf(prompt: string): number {
  const match = /<fork-attempt>Attempt (\d+) of/.exec(prompt);
  return match ? Number(match[1]) : 1;
}

/**
 * The demo judge: the smallest diff wins (the rubric's "size and risk" with everything else equal), a
 * tie in size is a tie. Answers in the judge's line format.
 */
function judgeTurn(prompt: string): ScriptedTurn {
  const sizes = [...prompt.matchAll(/<attempt number="(\d+)"[^>]*>([\s\S]*?)<\/attempt>/g)]
    .map(m => ({ attempt: Number(m[1]), size: (m[2].split('Diff:')[1] ?? '').split('\n').filter(l => /^[+-][^+-]/.test(l)).length }));
  const best = Math.min(...sizes.map(s => s.size));
  const smallest = sizes.filter(s => s.size === best);
  const lines = [
    `WINNER: ${smallest.length === 1 ? smallest[0].attempt : 'none'}`,
    `REASON: ${smallest.length === 1 ? `the demo judge prefers the smallest change (${best} changed lines)` : 'the demo judge found the candidates the same size (a tie)'}.`,
    ...sizes.map(s => `ATTEMPT ${s.attempt}: ${s.size} changed lines.`),
  ];
  return say(lines.join('\n'));
}

/** Attempts after the first write a variant, so a demo tournament has attempts to tell apart. */
function varied(plan: ReturnType<typeof planFor>, attempt: number): ReturnType<typeof planFor> {
  if (attempt <= 1 || plan.kind !== 'steps') return plan;
  return {
    ...plan,
    steps: plan.steps.map(step => step.name === 'write_file' && typeof step.input.content === 'string'
      ? { ...step, input: { ...step.input, content: `${step.input.content}${'(another approach)\n'.repeat(attempt - 1)}` } }
      : step),
  };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(b => (typeof b?.text === 'string' ? b.text : '')).join('\n');
  return '';
}

/** Tool calls made since the prompt, in order, with their results where they have come back. */
function outcomesSince(messages: Msg[], from: number): Outcome[] {
  const calls = new Map<string, Step>();
  const outcomes: Outcome[] = [];
  for (const message of messages.slice(from + 1)) {
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use' && block.id && block.name) {
        calls.set(block.id, { name: block.name as Step['name'], input: (block.input ?? {}) as Record<string, string> });
      } else if (block.type === 'tool_result' && block.tool_use_id && calls.has(block.tool_use_id)) {
        outcomes.push({ step: calls.get(block.tool_use_id) as Step, text: resultText(block.content), isError: block.is_error === true });
      }
    }
  }
  return outcomes;
}

/** Reports of finished forks that rode in as <fork-notification> reminders since the user's prompt (or just before it). */
function notificationsBefore(messages: Msg[], promptAt: number): string[] {
  let from = promptAt;
  while (from > 0 && messages[from - 1].role === 'user') from--;
  const text = messages
    .slice(Math.max(from, 0))
    .filter(m => m.role === 'user')
    .flatMap(blocksOf)
    .map(b => (b.type === 'text' ? b.text ?? '' : ''))
    .join('\n');
  // The user reads names; ids are for the model.
  return [...text.matchAll(NOTIFICATION)].map(m => `“${m[1]}” ${m[3] === 'completed' ? 'finished' : m[3]}`);
}

function say(text: string): ScriptedTurn {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

export function demoTurn(body: { messages: Msg[]; tools?: { name: string }[] }): ScriptedTurn {
  const messages = body.messages;
  const tools = new Set((body.tools ?? []).map(t => t.name));
  let promptAt = -1;
  for (let i = messages.length - 1; i >= 0 && promptAt < 0; i--) if (promptText(messages[i]) !== '') promptAt = i;
  const raw = promptAt >= 0 ? promptText(messages[promptAt]) : '';
  const inFork = raw.includes(BOILERPLATE);
  if (inFork && raw.includes('<fork-judge>')) return judgeTurn(raw);
  // A fork's prompt is its boilerplate ("Re-read files …") ending in the directive: only the directive is the ask.
  const ask = directiveOf(raw);
  const reports = promptAt >= 0 ? notificationsBefore(messages, promptAt) : [];
  const plan = varied(planFor(ask), attemptOf(raw));
  const outcomes = outcomesSince(messages, promptAt);

  if (plan.kind === 'forks') {
    if (inFork) return say(forkReport(ask, [], 'I am a forked worker, so I do not start forks of my own; nothing was done.'));
    if (!tools.has('Agent')) return say(`I would start ${plan.directives.length === 1 ? 'a fork' : 'forks'} with the \`Agent\` tool, but it is not available here.`);
    if (outcomes.length === 0) {
      const calls = plan.directives.map(directive => ({
        type: 'tool_use' as const,
        name: 'Agent',
        input: { subagent_type: 'fork', description: shortName(directive), prompt: directive },
      }));
      const intro = plan.directives.length === 1 ? 'Starting a fork for that in the background.' : `Starting ${plan.directives.length} forks in parallel.`;
      return { content: [{ type: 'text', text: intro }, ...calls], stop_reason: 'tool_use' };
    }
    return say(withFooter(forksStarted(plan.directives, outcomes), reports));
  }

  if (plan.kind === 'steps') {
    const next = plan.steps[outcomes.length];
    if (next) {
      if (!tools.has(next.name)) {
        return say(`I would use the \`${next.name}\` tool for that, but it is not available here, so I can only answer in text.\n\nYou asked: “${ask}”`);
      }
      return { content: [{ type: 'text', text: intro(next) }, { type: 'tool_use', name: next.name, input: next.input }], stop_reason: 'tool_use' };
    }
    const findings = outcomes.map(describeOutcome);
    const readOnly = plan.steps.every(s => s.name === 'list_files' || s.name === 'read_file' || s.name === 'grep');
    const heading = plan.summary ? 'A summary of the project, from its files and its README:' : readOnly ? 'Here is what I found:' : 'Here is what I did:';
    if (inFork) return say(forkReport(ask, outcomes, [heading, '', ...findings].join('\n')));
    return say(withFooter([heading, '', ...findings].join('\n'), reports));
  }

  if (inFork) return say(forkReport(ask, [], `I am the demo model and do not understand this directive. I understand: ${DEMO_VERBS.join(', ')}.`));
  if (reports.length > 0 && !ask) return say(withFooter('Noted.', reports));
  const echo = ask ? `Hello! You said: “${ask}”\n\n` : 'Hello! ';
  return say(withFooter(`${echo}I am the local demo model (scripted, not a real AI). I follow simple instructions with the real tools:\n\n${DEMO_VERBS.map(v => `- ${v}`).join('\n')}`, reports));
}

function intro(step: Step): string {
  switch (step.name) {
    case 'list_files': return 'Let me list the files in the workspace first.';
    case 'read_file': return `Now let me read \`${step.input.path}\`.`;
    case 'grep': return `Searching for \`${step.input.pattern}\`.`;
    case 'write_file': return `Writing \`${step.input.path}\`.`;
    case 'edit_file': return `Editing \`${step.input.path}\`.`;
    case 'bash': return `Running \`${step.input.command}\`.`;
  }
}

function describeOutcome(outcome: Outcome): string {
  const { step, text } = outcome;
  if (outcome.isError && step.name !== 'bash') return `- \`${step.name}\` failed: ${text.split('\n')[0]}`;
  switch (step.name) {
    case 'list_files': {
      const files = text.split('\n').map(l => l.trim()).filter(l => l !== '' && !l.startsWith('['));
      const shown = files.slice(0, 5).map(f => `\`${f}\``).join(', ');
      return `- The workspace has **${files.length}** file${files.length === 1 ? '' : 's'}${shown ? `, including ${shown}` : ''}.`;
    }
    case 'read_file': {
      // read_file numbers lines like `cat -n`; the quote drops the numbers.
      const lines = text.split('\n').filter(l => !l.startsWith('[')).slice(0, 3).map(l => l.replace(/^\s*\d+\t/, ''));
      return `- \`${step.input.path}\` begins with:\n\n${lines.map(l => `  > ${l}`).join('\n')}`;
    }
    case 'grep': {
      const hits = text.split('\n').filter(l => /^[^\s:][^:]*:\d+:/.test(l));
      if (hits.length === 0) return `- \`${step.input.pattern}\` does not appear in the workspace.`;
      return `- \`${step.input.pattern}\` appears ${hits.length} time${hits.length === 1 ? '' : 's'}:\n\n${hits.slice(0, 5).map(h => `  - \`${h.slice(0, 120)}\``).join('\n')}`;
    }
    case 'write_file': return `- Wrote \`${step.input.path}\`.`;
    case 'edit_file': return `- Edited \`${step.input.path}\`: replaced “${step.input.old_string}” with “${step.input.new_string}”.`;
    case 'bash': {
      const code = /\[Exit code: (\d+)\]/.exec(text)?.[1];
      const body = text.replace(/\n*\[[^\]\n]*\]\s*$/g, '').trimEnd();
      const tail = body.split('\n').slice(-8).join('\n');
      const status = outcome.isError && code === undefined ? `did not finish: ${text.split('\n').pop()}` : `exited with code ${code ?? 0}`;
      return `- \`${step.input.command}\` ${status}. The last lines of its output:\n\n\`\`\`\n${tail || '(no output)'}\n\`\`\``;
    }
  }
}

/** What the user reads about the forks it started: their names, not the tool results' ids and paths. */
function forksStarted(directives: string[], outcomes: Outcome[]): string {
  const started = outcomes.flatMap((o, i) => (o.isError ? [] : [`“${shortName(directives[i] ?? '')}”`]));
  const failed = outcomes.filter(o => o.isError).map(o => `- Could not start one: ${o.text.split('\n')[0].replace(/^Agent:\s*/, '')}`);
  const lines = started.length === 0 ? [] : [`Started ${started.length === 1 ? `a fork, ${started[0]}` : `${started.length} forks: ${started.join(', ')}`}. They work in the background; I will read their reports when they arrive.`];
  return [...lines, ...(failed.length > 0 ? ['', ...failed] : [])].join('\n');
}

/** The report a forked worker gives, in the form its boilerplate asks for (exported: the panel's rendering is checked on it). */
export function forkReport(directive: string, outcomes: Outcome[], result: string): string {
  const changed = outcomes.filter(o => !o.isError && (o.step.name === 'write_file' || o.step.name === 'edit_file')).map(o => o.step.input.path);
  const touched = [...new Set(outcomes.map(o => o.step.input.path).filter((p): p is string => typeof p === 'string'))];
  const checks = outcomes.filter(o => o.step.name !== 'write_file' && o.step.name !== 'edit_file').map(o => o.step.name === 'bash' ? `ran \`${o.step.input.command}\`` : `used ${o.step.name}`);
  const failed = outcomes.filter(o => o.isError).map(o => `\`${o.step.name}\` failed: ${o.text.split('\n')[0]}`);
  return [
    `Scope: ${directive.replace(/\.$/, '')}.`,
    `Result: ${result}`,
    `Key files: ${touched.length > 0 ? touched.join(', ') : 'none'}`,
    `Files changed: ${changed.length > 0 ? [...new Set(changed)].join(', ') : 'none'}`,
    `Verification: ${checks.length > 0 ? [...new Set(checks)].join('; ') : 'none (demo model)'}`,
    ...(failed.length > 0 ? [`Issues: ${failed.join('; ')}`] : []),
  ].join('\n');
}

function withFooter(text: string, reports: string[]): string {
  const heard = reports.length > 0 ? `\n\nMeanwhile ${reports.length === 1 ? 'a fork' : `${reports.length} forks`} reported: ${reports.join('; ')}.` : '';
  return `${text}${heard}\n\n_(the local demo model: scripted, not a real AI)_`;
}

/** The short description a model gives a fork: its directive, cut at a word when long. */
function shortName(directive: string): string {
  return shortText(directive, 48);
}
