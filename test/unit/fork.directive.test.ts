// docs/design.md §4.4: the directive in its <fork-boilerplate> block, the worktree notice, and the nested-fork guard.
import { strict as assert } from 'node:assert';
import type { Entry } from '../../src/common/transcript';
import { closeBoundary } from '../../src/runtime/fork/history/close';
import {
  FORK_BOILERPLATE_TAG, FORK_STARTED_RESULT, NESTED_FORK_ERROR, NOT_EXECUTED_RESULT, isForkTranscript, renderDirective,
} from '../../src/runtime/fork/history/directive';
import { refusingSubagentHost } from '../../src/runtime/fork/subagentHost';
import { selectHistory } from '../../src/runtime/fork/history/select';
import { Transcript, closingEntry, compactedParent, richParent, text } from './forkFixtures';

const DIRECTIVE = 'Write unit tests for parse() in test/parse.test.ts.';
const WORKTREE = { parentRoot: '/work/repo', forkRoot: '/work/.forks/repo-write-tests-1a2b' };

function blockOf(rendered: string): string {
  const open = rendered.indexOf(`<${FORK_BOILERPLATE_TAG}>`);
  const close = rendered.indexOf(`</${FORK_BOILERPLATE_TAG}>`);
  assert.ok(open >= 0 && close > open, 'one <fork-boilerplate>…</fork-boilerplate> block');
  return rendered.slice(open, close);
}

describe('fork: the directive and its boilerplate (docs/design.md §4.4)', () => {
  it('is wrapped in a <fork-boilerplate> block and carries the directive', () => {
    const rendered = renderDirective(DIRECTIVE);
    assert.equal(FORK_BOILERPLATE_TAG, 'fork-boilerplate');
    assert.ok(rendered.startsWith('<fork-boilerplate>'));
    assert.equal(rendered.split('<fork-boilerplate>').length, 2);
    assert.equal(rendered.split('</fork-boilerplate>').length, 2);
    assert.ok(rendered.includes(DIRECTIVE));
  });

  it('says: you are a forked worker, not the main agent', () => {
    const block = blockOf(renderDirective(DIRECTIVE));
    assert.match(block, /forked worker/);
    assert.match(block, /not the main agent/);
  });

  it('says: execute directly, do not fork', () => {
    const block = blockOf(renderDirective(DIRECTIVE));
    assert.match(block, /Execute the directive .*directly/);
    assert.match(block, /Do not fork/);
  });

  it('says: no questions or chatter, stay in scope', () => {
    const block = blockOf(renderDirective(DIRECTIVE));
    assert.match(block, /Do not ask questions/);
    assert.match(block, /converse/);
    assert.match(block, /within the directive's scope/);
  });

  it('says: report once, beginning with "Scope:", with the six sections, under 500 words', () => {
    const block = blockOf(renderDirective(DIRECTIVE));
    assert.match(block, /report once/);
    assert.match(block, /begin with "Scope:"/);
    assert.match(block, /under 500 words/);
    const sections = ['Scope:', 'Result:', 'Key files:', 'Files changed:', 'Verification:', 'Issues:'];
    let at = -1;
    for (const section of sections) {
      const next = block.indexOf(section, at + 1);
      assert.ok(next > at, `${section} in order`);
      at = next;
    }
  });

  it('is deterministic: no ids or times, the same directive renders the same bytes', () => {
    assert.equal(renderDirective(DIRECTIVE), renderDirective(DIRECTIVE));
    assert.equal(renderDirective(DIRECTIVE, WORKTREE), renderDirective(DIRECTIVE, WORKTREE));
    assert.doesNotMatch(blockOf(renderDirective(DIRECTIVE)).replace('500 words', ''), /\d{2,}/);
  });

  it('sibling directives differ only after the shared boilerplate', () => {
    const a = renderDirective('Write tests.');
    const b = renderDirective('Update docs.');
    const shared = a.slice(0, a.indexOf('Write tests.'));
    assert.ok(shared.includes(`</${FORK_BOILERPLATE_TAG}>`));
    assert.ok(b.startsWith(shared));
  });

  it('without a worktree there is no worktree notice', () => {
    assert.doesNotMatch(renderDirective(DIRECTIVE), /[Ww]orktree/);
  });

  it('in a worktree the block holds the notice with both roots, path translation, re-reading, changes staying', () => {
    const block = blockOf(renderDirective(DIRECTIVE, WORKTREE));
    assert.match(block, /Worktree notice/);
    assert.ok(block.includes(WORKTREE.parentRoot), 'the parent\'s root');
    assert.ok(block.includes(WORKTREE.forkRoot), 'the fork\'s root');
    assert.match(block, /Translate inherited paths/);
    assert.match(block, /Re-read files before editing/);
    assert.match(block, /changes stay in your worktree/);
  });
});

describe('fork: recognising a fork transcript (docs/design.md §4.4)', () => {
  function forkOf(entries: readonly Entry[], turns: 'all' | number = 'all'): Entry[] {
    const { inherited, closing } = closeBoundary(selectHistory(entries, turns), renderDirective(DIRECTIVE));
    return [...inherited, closingEntry(closing)];
  }

  it('a parent transcript is not a fork, even with Agent calls and fork notifications in it', () => {
    const parent = richParent({ emptyTexts: true });
    assert.ok(parent.entries.some(e => e.kind === 'notification'));
    assert.equal(isForkTranscript(parent.entries), false);
    assert.equal(isForkTranscript(compactedParent().entries), false);
    assert.equal(isForkTranscript([]), false);
  });

  it('a fork transcript is detected by its boilerplate: mid-turn closing, plain closing, numeric window', () => {
    assert.equal(isForkTranscript(forkOf(richParent().entries)), true);
    assert.equal(isForkTranscript(forkOf(compactedParent().entries)), true);
    assert.equal(isForkTranscript(forkOf(richParent().entries, 1)), true);
  });

  it('stays detected after the fork continues (its own later turns follow the closing)', () => {
    const fork = forkOf(richParent().entries);
    const t = new Transcript();
    t.response(text('Scope: tests\nResult: written.'));
    t.prompt('Also cover the error paths.');
    assert.equal(isForkTranscript([...fork, ...t.entries]), true);
  });

  it('the boilerplate only in an assistant message or inside a tool_result does not make a fork', () => {
    const t = new Transcript();
    t.startup();
    t.prompt('Show me the fork directive file.');
    const call = t.call('read_file', { path: 'src/runtime/fork/directive.ts' });
    t.response(text(renderDirective('quoted')), call);
    t.add('tool_results', 'user', [{ type: 'tool_result', tool_use_id: call.id, content: renderDirective('in a file') }]);
    assert.equal(isForkTranscript(t.entries), false);
  });
});

describe('fork: the nested-fork guard (docs/design.md §4.4)', () => {
  const input = { description: 'nested', prompt: 'Fork again.', run_in_background: true } as const;

  it('a fork calling Agent with subagent_type "fork" gets an error result, not a fork', async () => {
    const result = await refusingSubagentHost.run({ ...input, subagent_type: 'fork', fork_turns: 'all' }, 'toolu_9', new AbortController().signal);
    assert.deepEqual(result, { content: NESTED_FORK_ERROR, isError: true });
    assert.match(NESTED_FORK_ERROR, /already a forked worker/);
  });

  it('a fork starting a regular subagent gets an error result too', async () => {
    const result = await refusingSubagentHost.run({ ...input, subagent_type: 'explore' }, 'toolu_9', new AbortController().signal);
    assert.equal(result.isError, true);
  });

  it('the guard and placeholder texts are distinct constants', () => {
    assert.equal(new Set([NESTED_FORK_ERROR, FORK_STARTED_RESULT, NOT_EXECUTED_RESULT]).size, 3);
  });
});
