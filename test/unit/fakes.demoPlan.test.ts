// What the demo model understands: plain asks become tool steps in the order written.
import { strict as assert } from 'node:assert';
import { planFor } from '../fakes/demoPlan';

describe('demo plan', () => {
  const steps = (ask: string) => {
    const plan = planFor(ask);
    return plan.kind === 'steps' ? plan.steps.map(s => [s.name, s.input]) : plan;
  };

  it('reads the verbs in the order written', () => {
    assert.deepEqual(steps('list the files and read README.md'), [['list_files', { pattern: '**/*' }], ['read_file', { path: 'README.md' }]]);
    assert.deepEqual(steps('search for greet(; then run npm test'), [['grep', { pattern: 'greet\\(' }], ['bash', { command: 'npm test' }]]);
    assert.deepEqual(steps('run `node src/greet.js World`'), [['bash', { command: 'node src/greet.js World' }]]);
  });

  it('writes given text, or a note describing the ask', () => {
    assert.deepEqual(steps('create NOTES.md with hello there'), [['write_file', { path: 'NOTES.md', content: 'hello there\n' }]]);
    assert.deepEqual(steps('write a CHANGELOG.md describing the project'), [
      ['write_file', { path: 'CHANGELOG.md', content: '# CHANGELOG\n\nWritten by the Fork Agents demo model (describing the project).\n' }],
    ]);
  });

  it('edits with replace … with …', () => {
    assert.deepEqual(steps('edit src/math.js: replace "a + b" with "b + a"'), [['edit_file', { path: 'src/math.js', old_string: 'a + b', new_string: 'b + a' }]]);
  });

  it('fans out with "in parallel" and "fork:"', () => {
    assert.deepEqual(planFor('in parallel, create A.md with a; read README.md.'), { kind: 'forks', directives: ['create A.md with a', 'read README.md'] });
    assert.deepEqual(planFor('fork: list the files and read README.md'), { kind: 'forks', directives: ['list the files and read README.md'] });
  });

  it('summarises the project from its file list and README, in the words a newcomer types', () => {
    for (const ask of ['summarise the project', 'Summarize this repository.', 'give me an overview of the codebase', 'what is this project?']) {
      const plan = planFor(ask);
      assert.ok(plan.kind === 'steps' && plan.summary === true, ask);
      assert.deepEqual(steps(ask), [['list_files', { pattern: '**/*' }], ['read_file', { path: 'README.md' }]], ask);
    }
    // A fork's directive too (the README's first image shows one), and not a sentence that merely mentions a project.
    assert.deepEqual(planFor('fork: summarise the project'), { kind: 'forks', directives: ['summarise the project'] });
    assert.deepEqual(planFor('the project is late'), { kind: 'none' });
  });

  it('understands nothing else', () => {
    assert.deepEqual(planFor('How are you today?'), { kind: 'none' });
  });
});
