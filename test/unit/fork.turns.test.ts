// docs/design.md §4.1: the one fork_turns parser, and the Agent tool's use of it (§4.2, §4.5).
import { strict as assert } from 'node:assert';
import { FORK_TURNS_FORMS, forkTurnsToString, MAX_FORK_TURNS, parseForkTurns } from '../../src/common/forkTurns';
import { agentTool, parseAgentInput } from '../../src/runtime/tools/agent';
import { ToolError } from '../../src/runtime/tools/types';

/** Every value docs/design.md §4.1 lists as rejected, plus a few more of the same families. */
const REJECTED: { label: string; value: unknown }[] = [
  { label: '"none"', value: 'none' },
  { label: '"0"', value: '0' },
  { label: '"-1"', value: '-1' },
  { label: '"1.5"', value: '1.5' },
  { label: '" 3"', value: ' 3' },
  { label: '"3 "', value: '3 ' },
  { label: '"+3"', value: '+3' },
  { label: '"03"', value: '03' },
  { label: '"1e2"', value: '1e2' },
  { label: '""', value: '' },
  { label: '"3\\n"', value: '3\n' },
  { label: '"ALL"', value: 'ALL' },
  { label: '"all "', value: 'all ' },
  { label: '"00"', value: '00' },
  { label: '"0x10"', value: '0x10' },
  { label: '"٣" (a non-ASCII digit)', value: '٣' },
  { label: 'the number 3', value: 3 },
  { label: 'the number 0', value: 0 },
  { label: 'the number 1.5', value: 1.5 },
  { label: 'NaN', value: Number.NaN },
  { label: 'true', value: true },
  { label: 'false', value: false },
  { label: 'null', value: null },
  { label: '[]', value: [] },
  { label: '["3"]', value: ['3'] },
  { label: '{}', value: {} },
  { label: '{ turns: "3" }', value: { turns: '3' } },
];

function assertNamesForms(message: string): void {
  assert.ok(message.includes(FORK_TURNS_FORMS), `message should name the accepted forms: ${message}`);
  assert.match(message, /"all"/);
  assert.match(message, /positive whole number/);
}

describe('fork: fork_turns parsing (docs/design.md §4.1)', () => {
  it('omitted (undefined) means "all"', () => {
    assert.deepEqual(parseForkTurns(undefined), { ok: true, value: 'all' });
  });

  it('accepts "all"', () => {
    assert.deepEqual(parseForkTurns('all'), { ok: true, value: 'all' });
  });

  it('accepts canonical positive integer strings ^[1-9][0-9]*$ as their number', () => {
    for (const [raw, value] of [['1', 1], ['2', 2], ['9', 9], ['10', 10], ['120', 120], ['10000', 10000]] as const) {
      assert.deepEqual(parseForkTurns(raw), { ok: true, value }, raw);
    }
  });

  for (const { label, value } of REJECTED) {
    it(`rejects ${label} with a message naming the accepted forms`, () => {
      const result = parseForkTurns(value);
      assert.equal(result.ok, false);
      if (!result.ok) assertNamesForms(result.error);
    });
  }

  it('quotes the rejected string in the message, so " 3" and "3 " are visible', () => {
    for (const raw of [' 3', '3 ', '', '03']) {
      const result = parseForkTurns(raw);
      assert.ok(!result.ok && result.error.includes(JSON.stringify(raw)), raw);
    }
  });

  it('says why a number or a boolean is refused: it is not a string', () => {
    for (const raw of [3, true]) {
      const result = parseForkTurns(raw);
      assert.ok(!result.ok && /not a string/.test(result.error), String(raw));
    }
  });

  it('rejects a digit string beyond MAX_FORK_TURNS (or the safe integer range), naming the allowed range', () => {
    for (const raw of [String(MAX_FORK_TURNS + 1), '1000000000', '99999999999999999999']) {
      const result = parseForkTurns(raw);
      assert.ok(!result.ok && result.error === `The fork_turns "${raw}" is too large; use "all" or a whole number from 1 to 10000 as a string.`, raw);
    }
    assert.deepEqual(parseForkTurns(String(MAX_FORK_TURNS)), { ok: true, value: MAX_FORK_TURNS });
  });

  it('words the error for people when a person typed it: a turn count, no field name, no "as a string"', () => {
    const result = parseForkTurns('1.5', 'user');
    assert.ok(!result.ok);
    assert.equal(result.error, 'Invalid turn count "1.5": use "all" or a positive whole number such as 3.');
    const model = parseForkTurns('1.5');
    assert.ok(!model.ok && /^Invalid fork_turns "1\.5": .*as a string/.test(model.error), 'the Agent tool keeps its field name for the model');
  });

  it('round-trips through forkTurnsToString', () => {
    for (const raw of ['all', '1', '42']) {
      const result = parseForkTurns(raw);
      assert.ok(result.ok);
      if (result.ok) assert.equal(forkTurnsToString(result.value), raw);
    }
  });
});

function agentError(input: unknown): string {
  try {
    parseAgentInput(input);
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

const base = { description: 'write tests', prompt: 'Write unit tests for parse().' };

describe('fork: Agent tool input (docs/design.md §4.1, §4.4)', () => {
  it('a fork without fork_turns inherits "all"', () => {
    assert.equal(parseAgentInput({ ...base, subagent_type: 'fork' }).fork_turns, 'all');
  });

  it('a fork with fork_turns "2" gets the number 2', () => {
    assert.equal(parseAgentInput({ ...base, subagent_type: 'fork', fork_turns: '2' }).fork_turns, 2);
    assert.equal(parseAgentInput({ ...base, subagent_type: 'fork', fork_turns: 'all' }).fork_turns, 'all');
  });

  for (const { label, value } of REJECTED) {
    it(`a fork with fork_turns ${label} is a tool error naming the accepted forms`, () => {
      assertNamesForms(agentError({ ...base, subagent_type: 'fork', fork_turns: value }));
    });
  }

  for (const type of ['general-purpose', 'explore']) {
    it(`fork_turns with subagent_type "${type}" is rejected (regular subagents start without the conversation)`, () => {
      for (const value of ['all', '2', 'none', null]) {
        assert.match(agentError({ ...base, subagent_type: type, fork_turns: value }), /fork_turns .*subagent_type "fork"/);
      }
    });
  }

  it('fork_turns without any subagent_type is rejected', () => {
    for (const value of ['all', '3']) {
      assert.match(agentError({ ...base, fork_turns: value }), /fork_turns .*subagent_type "fork"/);
    }
  });

  it('regular subagents have no fork_turns; no subagent_type means general-purpose', () => {
    const plain = parseAgentInput(base);
    assert.equal(plain.subagent_type, 'general-purpose');
    assert.equal(plain.fork_turns, undefined);
    assert.equal(parseAgentInput({ ...base, subagent_type: 'explore' }).fork_turns, undefined);
  });

  it('forks always run in the background, even when run_in_background is false', () => {
    assert.equal(parseAgentInput({ ...base, subagent_type: 'fork' }).run_in_background, true);
    assert.equal(parseAgentInput({ ...base, subagent_type: 'fork', run_in_background: false }).run_in_background, true);
  });

  it('regular subagents run in the foreground unless run_in_background is true', () => {
    assert.equal(parseAgentInput(base).run_in_background, false);
    assert.equal(parseAgentInput({ ...base, subagent_type: 'explore', run_in_background: true }).run_in_background, true);
  });

  it('rejects an unknown subagent_type, naming the known ones', () => {
    assert.match(agentError({ ...base, subagent_type: 'forked' }), /fork, general-purpose, explore/);
  });

  it('declares fork_turns in the schema as "all" or ^[1-9][0-9]*$ (the same rule as the parser)', () => {
    const props = agentTool.definition.input_schema.properties as Record<string, { type: string; pattern: string }>;
    assert.equal(props.fork_turns.type, 'string');
    const pattern = new RegExp(props.fork_turns.pattern);
    for (const ok of ['all', '1', '2', '10', '123']) assert.ok(pattern.test(ok), ok);
    for (const bad of ['none', '0', '-1', '1.5', ' 3', '3 ', '+3', '03', '1e2', '', 'All']) assert.ok(!pattern.test(bad), bad);
    assert.equal(agentTool.definition.name, 'Agent');
  });
});
