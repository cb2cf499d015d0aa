// What the demo model understands: an ask in plain words becomes a list of tool steps, in the order
// written ("list the files and read README.md", "create NOTES.md with hello; run npm test"), or a fan-out
// into forks ("in parallel, A; B" / "fork: A"). Pure parsing, no I/O: the demo decides from the text alone,
// so a fork, a revived session and a replayed conversation behave the same.

export type ToolName = 'list_files' | 'read_file' | 'grep' | 'write_file' | 'edit_file' | 'bash';

export interface Step {
  name: ToolName;
  input: Record<string, string>;
}

export type Plan =
  /** `summary`: the steps gather what a summary of the project needs (its files, its README). */
  | { kind: 'steps'; steps: Step[]; summary?: boolean }
  | { kind: 'forks'; directives: string[] }
  | { kind: 'none' };

export const DEMO_VERBS = [
  '“summarise the project”',
  '“list the files”',
  '“read FILE”',
  '“search for TEXT”',
  '“create FILE with TEXT” (or “write FILE …”)',
  '“edit FILE: replace OLD with NEW”',
  '“run COMMAND” (for example “run npm test”)',
  '“fork: DIRECTIVE” or “in parallel, A; B” (background forks)',
];

const VERB = '(?:list|read|search|find|create|write|edit|run)';
// Clauses are separated by ";" or "then", or by "and" / "," when a new verb follows.
const CLAUSE_SPLIT = new RegExp(`\\s*(?:;|\\bthen\\b|,?\\s+and\\s+(?=${VERB}\\b)|,\\s*(?=${VERB}\\b))\\s*`, 'i');
const QUOTED = '[`"“\']?';
const UNQUOTED_END = '[`"”\']?';
const PATH = '([\\w./-]*[\\w/])';

const LIST = /\blist\b/i;
const READ = new RegExp(`^(?:please\\s+)?read\\s+(?:the\\s+)?(?:file\\s+)?${QUOTED}([\\w./-]*\\w)${UNQUOTED_END}`, 'i');
const SEARCH = new RegExp(`^(?:please\\s+)?(?:search|find)\\s+(?:for\\s+)?${QUOTED}(.+?)${UNQUOTED_END}(?:\\s+in\\s+(?:the\\s+)?(?:files|workspace|project))?$`, 'i');
const CREATE = new RegExp(`^(?:please\\s+)?(?:create|write)\\s+(?:a\\s+|an\\s+|the\\s+)?(?:new\\s+)?(?:file\\s+)?${QUOTED}${PATH}${UNQUOTED_END}(?:\\s+([\\s\\S]*))?$`, 'i');
const EDIT = new RegExp(
  `^(?:please\\s+)?edit\\s+${QUOTED}${PATH}${UNQUOTED_END}\\s*:?\\s*(?:and\\s+)?replace\\s+${QUOTED}(.+?)${UNQUOTED_END}\\s+with\\s+${QUOTED}(.*?)${UNQUOTED_END}$`,
  'i',
);
const RUN = new RegExp(`^(?:please\\s+)?run\\s+${QUOTED}(.+?)${UNQUOTED_END}$`, 'i');
const FORK = /^\s*(?:please\s+)?fork\s*:\s*([\s\S]+)$/i;
// "summarise the project", "summarize this repo", "give me an overview of the codebase", "what is this project?"
const SUMMARY = /^\s*(?:please\s+)?(?:(?:summari[sz]e|describe|explain)|give\s+(?:me\s+)?(?:a\s+summary|an\s+overview)\s+of|what\s+is)\s+(?:the\s+|this\s+)?(?:project|repo(?:sitory)?|workspace|code\s?base)\b[\s.!?]*$/i;
/** What a summary reads: the file list, then the README (a project without one answers from the list). */
const SUMMARY_STEPS: Step[] = [{ name: 'list_files', input: { pattern: '**/*' } }, { name: 'read_file', input: { path: 'README.md' } }];
const PARALLEL = /^\s*(?:please\s+)?in\s+parallel\s*[,:]\s*([\s\S]+)$/i;

export function planFor(ask: string): Plan {
  const text = ask.trim();
  const parallel = PARALLEL.exec(text);
  if (parallel) {
    const directives = parallel[1].split(/\s*;\s*/).map(d => d.trim().replace(/\.$/, '')).filter(d => d !== '');
    if (directives.length > 0) return { kind: 'forks', directives };
  }
  if (SUMMARY.test(text)) return { kind: 'steps', steps: SUMMARY_STEPS, summary: true };
  const fork = FORK.exec(text);
  if (fork) return { kind: 'forks', directives: [fork[1].trim().replace(/\.$/, '')] };
  const steps: Step[] = [];
  for (const clause of text.split(CLAUSE_SPLIT)) {
    const step = stepFor(clause.trim().replace(/[.!]$/, ''));
    if (step) steps.push(step);
  }
  return steps.length > 0 ? { kind: 'steps', steps } : { kind: 'none' };
}

function stepFor(clause: string): Step | undefined {
  if (clause === '') return undefined;
  const edit = EDIT.exec(clause);
  if (edit) return { name: 'edit_file', input: { path: edit[1], old_string: edit[2], new_string: edit[3] } };
  const create = CREATE.exec(clause);
  if (create) return { name: 'write_file', input: { path: create[1], content: contentFor(create[1], create[2]) } };
  const run = RUN.exec(clause);
  if (run) return { name: 'bash', input: { command: run[1] } };
  const search = SEARCH.exec(clause);
  if (search) return { name: 'grep', input: { pattern: escapeRegExp(search[1]) } };
  const read = READ.exec(clause);
  if (read) return { name: 'read_file', input: { path: read[1] } };
  if (LIST.test(clause)) return { name: 'list_files', input: { pattern: '**/*' } };
  return undefined;
}

/** "with TEXT" / "saying TEXT" / "containing TEXT" is the content; any other words describe it. */
function contentFor(path: string, rest: string | undefined): string {
  const words = (rest ?? '').trim();
  const literal = /^(?:with|saying|containing)\s+(?:the\s+(?:text|content)\s+)?([\s\S]+)$/i.exec(words);
  if (literal) return `${unquote(literal[1])}\n`;
  const about = words.replace(/^(?:that|which|to)\s+/i, '');
  const title = path.split('/').pop() ?? path;
  const lines = path.endsWith('.md') ? [`# ${title.replace(/\.md$/, '')}`, ''] : [];
  lines.push(about ? `Written by the Fork Agents demo model (${about}).` : 'Written by the Fork Agents demo model.');
  return `${lines.join('\n')}\n`;
}

function unquote(text: string): string {
  const trimmed = text.trim();
  const quoted = /^[`"“'](.*)[`"”']$/s.exec(trimmed);
  return quoted ? quoted[1] : trimmed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
