// Retired models (src/common/models.ts `retiresOn`): the host's model list leaves them out and marks a
// `fork.model` that is one; the Claude API refuses every request to them (about-claude/model-deprecations).
import { strict as assert } from 'node:assert';
import { retiredModelText, retiredOn, retiredToday } from '../../src/common/models';
import { availableModels, retiredMark } from '../../src/host/lm/models';
import type { ListedModel } from '../../src/common/protocol/model';

type Settings = Parameters<typeof availableModels>[0];
type Runtime = Parameters<typeof availableModels>[1];

function settings(model: string, fallback: ListedModel[], provider?: 'anthropic' | 'bedrock' | 'vertex'): Settings {
  return { model: () => model, fallbackModels: () => fallback, provider: () => (provider ? { provider } : {}) } as Settings;
}
const runtime = (models: ListedModel[] | Error): Runtime => ({
  request: async () => {
    if (models instanceof Error) throw models;
    return { models };
  },
}) as unknown as Runtime;

const SONNET_45 = { id: 'claude-sonnet-4-5-20250929', name: 'Claude Sonnet 4.5' };
const OPUS_41 = { id: 'claude-opus-4-1', name: 'Claude Opus 4.1' };
const SONNET_55 = { id: 'claude-sonnet-5-5', name: 'Claude Sonnet 5.5' };
const OPUS_45 = { id: 'claude-opus-4-5', name: 'Claude Opus 4.5' };

describe('host: retired models in the model list', () => {
  it('dates a retirement by the UTC day: Sonnet 4.5 is retired from 2026-11-30, Opus 4.5 not before 2027-01-22', () => {
    assert.equal(retiredOn('claude-sonnet-4-5', '2026-11-29'), undefined);
    assert.equal(retiredOn('claude-sonnet-4-5-20250929', '2026-11-30'), '2026-11-30');
    assert.equal(retiredOn('claude-opus-4-5', '2026-12-02'), undefined);
    assert.equal(retiredOn('claude-sonnet-5-5', '2026-12-02'), undefined);
    assert.equal(retiredOn('not-a-model', '2026-12-02'), undefined);
    // Bedrock and Google Cloud set their own dates.
    assert.equal(retiredOn('claude-sonnet-4-5', '2026-12-02', 'bedrock'), undefined);
    assert.equal(retiredOn('claude-sonnet-4-5', '2026-12-02', 'anthropic'), '2026-11-30');
    assert.match(retiredModelText('claude-sonnet-4-5', '2026-11-30'), /^claude-sonnet-4-5 was retired on 2026-11-30: .*model-deprecations.*claude-sonnet-5-5/);
  });

  it('retiredToday, the clock every sender asks (send, fork/start, the CLI, the model client), turns at UTC midnight', () => {
    assert.equal(retiredToday('claude-sonnet-4-5', undefined, new Date('2026-11-29T23:59:59.999Z')), undefined, 'the last moment before');
    assert.equal(retiredToday('claude-sonnet-4-5', undefined, new Date('2026-11-30T00:00:00.000Z')), '2026-11-30', 'the first moment of the day');
    // The UTC day, not the machine's: 23:30 on the 29th in New York is already the 30th.
    assert.equal(retiredToday('claude-sonnet-4-5-20250929', 'anthropic', new Date('2026-11-29T23:30:00-05:00')), '2026-11-30');
    assert.equal(retiredToday('claude-sonnet-4-5', 'anthropic', new Date('2026-11-30T09:00:00+10:00')), undefined, '09:00 in Sydney on the 30th is still the 29th in UTC');
    assert.equal(retiredToday('claude-sonnet-4-5', 'vertex', new Date('2026-12-02T00:00:00Z')), undefined, 'Google Cloud sets its own dates');
    // Without `now`: the machine's clock (this repository's tests run after 2026-11-30).
    assert.equal(retiredToday('claude-sonnet-4-5'), '2026-11-30');
  });

  it('leaves retired models out of fork.models (the fallback list) and of the endpoint\'s list', async () => {
    for (const source of ['fallback', 'endpoint'] as const) {
      const list = [SONNET_45, OPUS_41, OPUS_45, SONNET_55];
      const models = source === 'fallback'
        ? await availableModels(settings('claude-sonnet-5-5', list), runtime(new Error('not running')), '2026-12-02')
        : await availableModels(settings('claude-sonnet-5-5', []), runtime(list), '2026-12-02');
      assert.deepEqual(models.map(m => m.id), ['claude-sonnet-5-5', 'claude-opus-4-5'], source);
    }
  });

  it('keeps fork.model first when it is retired, its name marked with the day', async () => {
    const models = await availableModels(settings(SONNET_45.id, [SONNET_45, SONNET_55]), runtime(new Error('down')), '2026-12-02');
    assert.deepEqual(models, [{ ...SONNET_45, name: `Claude Sonnet 4.5 ${retiredMark('2026-11-30')}` }, SONNET_55]);
    const unlisted = await availableModels(settings('claude-opus-4-1', []), runtime([SONNET_55]), '2026-12-02');
    assert.equal(unlisted[0].name, 'claude-opus-4-1 (retired 2026-08-05)');
  });

  it('before the day, and on Bedrock, nothing is hidden or marked', async () => {
    const before = await availableModels(settings(SONNET_45.id, [SONNET_45, SONNET_55]), runtime(new Error('down')), '2026-11-29');
    assert.deepEqual(before, [SONNET_45, SONNET_55]);
    const bedrock = await availableModels(settings(SONNET_45.id, [SONNET_45, OPUS_41]), runtime(new Error('down')), '2026-12-02');
    assert.equal(bedrock.length, 1, 'on the Claude API both are retired');
    const onBedrock = await availableModels(settings(SONNET_45.id, [SONNET_45, OPUS_41], 'bedrock'), runtime(new Error('down')), '2026-12-02');
    assert.deepEqual(onBedrock, [SONNET_45, OPUS_41]);
  });
});
