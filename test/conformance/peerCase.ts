// The conformance suite's case registry: every case restates one of a peer's own public tests in our
// transcript terms and carries a verdict. `same` cases must pass; `deliberately different` cases assert
// our rule instead (and name it); `not expressible` cases show, through the runtime, why the peer's
// situation cannot arise here. A root hook prints the counts at the end of the run.

export type Verdict = 'same' | 'deliberately different' | 'not expressible';

/** Where the peer states the behaviour: a test (or documented source) at a commit. */
export interface PeerSource {
  repo: string;
  path: string;
  commit: string;
  /** The peer's test name, or the part of the file the case restates. */
  test: string;
}

export interface PeerCase {
  verdict: Verdict;
  /** The behaviour in our terms (entries, real user turns, fork_turns, the directive). */
  title: string;
  sources: PeerSource[];
  /** Deliberately different / not expressible: the rule of docs/design.md or the runtime fact that decides it. */
  because?: string;
}

interface Outcome { verdict: Verdict; title: string; state: 'passed' | 'failed' | 'pending' | undefined }

const outcomes: Outcome[] = [];
const byTitle = new Map<string, PeerCase>();

export function peerCase(spec: PeerCase, fn: () => Promise<void>): void {
  if (spec.verdict !== 'same' && !spec.because) throw new Error(`conformance case "${spec.title}": say why it differs`);
  if (spec.sources.length === 0) throw new Error(`conformance case "${spec.title}": name its source`);
  const title = `[${spec.verdict}] ${spec.title}`;
  if (byTitle.has(title)) throw new Error(`conformance case "${spec.title}" is stated twice`);
  byTitle.set(title, spec);
  it(title, fn);
}

// Root hooks (this module is loaded before any describe block runs).
afterEach(function () {
  const test = this.currentTest;
  const spec = test && byTitle.get(test.title);
  if (spec) outcomes.push({ verdict: spec.verdict, title: spec.title, state: test.state });
});

after(function () {
  console.log(`\n${summaryLine(outcomes)}`);
  for (const failed of outcomes.filter(o => o.state !== 'passed')) console.log(`  not passing: [${failed.verdict}] ${failed.title}`);
});

export function summaryLine(all: readonly Outcome[]): string {
  const count = (verdict: Verdict) => all.filter(o => o.verdict === verdict);
  const part = (verdict: Verdict, label: string) => {
    const cases = count(verdict);
    const passed = cases.filter(o => o.state === 'passed').length;
    return `${cases.length} ${label} (${passed} passing)`;
  };
  return `conformance with the peers: ${all.length} cases — ${part('same', 'same')}, ${part('deliberately different', 'deliberately different')}, ${part('not expressible', 'not expressible')}`;
}

// Sources, named once.
const QWEN = 'QwenLM/qwen-code';
const QWEN_FORK_TEST = 'packages/core/src/tools/agent/fork-subagent.test.ts';
/** The fork_turns PR (#7346) version of the fork history tests. */
export const qwenForkTurns = (test: string): PeerSource => ({ repo: QWEN, path: QWEN_FORK_TEST, commit: '05c11b40c68a46b5d77a54de95526054fa393bbb', test });
/** A later version, where the same history builder also serves regular subagents. */
export const qwenInherited = (test: string): PeerSource => ({ repo: QWEN, path: QWEN_FORK_TEST, commit: '0e66b3b17ab6486e374794071ddac94529c2140e', test });

export const codexTruncation = (test: string): PeerSource => ({
  repo: 'openai/codex', path: 'codex-rs/core/src/thread_rollout_truncation_tests.rs', commit: '548118fbfbe42b7c5bcd2d186899e244f91e294a', test,
});
export const codexMultiAgents = (test: string): PeerSource => ({
  repo: 'openai/codex', path: 'codex-rs/core/src/tools/handlers/multi_agents_tests.rs', commit: '0286fb715695b1ea65bf0322d91211102cb57dc5', test,
});
export const codexControl = (test: string): PeerSource => ({
  repo: 'openai/codex', path: 'codex-rs/core/src/agent/control_tests.rs', commit: 'dc78a48a8918e178a857cbfa6426727c12b4afda', test,
});

const DSH = 'deepseek-ai/deepseek-harness';
const DSH_COMMIT = 'b150a551b8d465e31e418e1b2eaf5e79bbb7d28e';
export const dshForkProvider = (test: string): PeerSource => ({
  repo: DSH, path: 'packages/subagent/subagent-fork-in-process/tests/subagent-fork-in-process.spec.ts', commit: DSH_COMMIT, test,
});
export const dshSessionFork = (test: string): PeerSource => ({ repo: DSH, path: 'packages/core/session/tests/fork.spec.ts', commit: DSH_COMMIT, test });
export const dshNote = (path: string, test: string): PeerSource => ({ repo: DSH, path, commit: DSH_COMMIT, test });
/** The snapshot-for-fork proposal (seed 002): its verification list, against DeepSeek harness 0.1.2-alpha.4. */
export const dshSnapshotProposal = (test: string): PeerSource => ({
  repo: DSH, path: 'discussion "Preserve current-turn context when forking subagents" (/work/shared/seeds/002_…)', commit: '4e84901e6471b79ec0338099867ebb4606d12bb5', test,
});

/** Claude Code's fork subagent as published in a public source mirror (behaviour only). */
export const claudeFork = (test: string): PeerSource => ({
  repo: 'claude-code-best/claude-code', path: 'src/tools/AgentTool/forkSubagent.ts', commit: 'b9d7af36bef906dc00f3f193303b217acb842bb4', test,
});
