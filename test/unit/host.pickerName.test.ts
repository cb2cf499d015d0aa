// The Chat view's model picker takes the first model by name (VS Code 1.139: models sorted with
// `name.localeCompare`, a declared default only through the proposed `chatProvider` API): with the
// endpoint's list, `fork.model` must still come first.
import { strict as assert } from 'node:assert';
import { DEFAULT_MARK, pickerName } from '../../src/host/lm/models';
import { CURRENT_MODELS } from '../fakes/models';

/** The picker's order, as the workbench sorts it. */
function pickerOrder(names: string[]): string[] {
  return [...names].sort((a, b) => a.localeCompare(b));
}

describe('host: the model picker\'s default', () => {
  const listed = CURRENT_MODELS.map(m => ({ id: m.id, name: m.display_name }));

  it('puts fork.model first among the endpoint\'s models, marked as the default', () => {
    for (const preferred of ['claude-sonnet-5-5', 'claude-opus-4-8', 'claude-haiku-5-5']) {
      const names = listed.map(m => pickerName(m, preferred));
      const first = pickerOrder(names)[0];
      assert.equal(first, `${DEFAULT_MARK} ${listed.find(m => m.id === preferred)!.name}`, `fork.model ${preferred}`);
      assert.equal(names.filter(n => n.startsWith(DEFAULT_MARK)).length, 1, 'one model is marked');
    }
  });

  it('without the mark the picker would start at another model', () => {
    assert.notEqual(pickerOrder(listed.map(m => m.name))[0], 'Claude Sonnet 5.5');
  });
});
