// Model ids per provider: the values are the providers' own, as listed on the pages modelIds.ts cites.
import * as assert from 'node:assert/strict';
import { providerModelId } from '../../src/runtime/model/modelIds';

const bedrock = { name: 'bedrock' as const };
const vertex = { name: 'vertex' as const };

describe('model ids per provider', () => {
  it('maps aliases and dated ids of known models to Bedrock\'s and Vertex\'s names', () => {
    assert.equal(providerModelId(bedrock, 'claude-sonnet-4-5'), 'anthropic.claude-sonnet-4-5-20250929-v1:0');
    assert.equal(providerModelId(bedrock, 'claude-sonnet-4-5-20250929'), 'anthropic.claude-sonnet-4-5-20250929-v1:0');
    assert.equal(providerModelId(bedrock, 'claude-opus-4-6'), 'anthropic.claude-opus-4-6-v1');
    assert.equal(providerModelId(bedrock, 'claude-sonnet-4-6'), 'anthropic.claude-sonnet-4-6');
    assert.equal(providerModelId(bedrock, 'claude-haiku-4-5-20251001'), 'anthropic.claude-haiku-4-5-20251001-v1:0');
    assert.equal(providerModelId(bedrock, 'claude-sonnet-4-20250514'), 'anthropic.claude-sonnet-4-20250514-v1:0');
    assert.equal(providerModelId(bedrock, 'claude-3-7-sonnet'), 'anthropic.claude-3-7-sonnet-20250219-v1:0');
    assert.equal(providerModelId(vertex, 'claude-opus-4-1'), 'claude-opus-4-1@20250805');
    assert.equal(providerModelId(vertex, 'claude-opus-4-5-20251101'), 'claude-opus-4-5@20251101');
    assert.equal(providerModelId(vertex, 'claude-3-5-sonnet-20241022'), 'claude-3-5-sonnet-v2@20241022');
    assert.equal(providerModelId(vertex, 'claude-3-5-sonnet-20240620'), 'claude-3-5-sonnet@20240620');
    assert.equal(providerModelId(vertex, 'claude-3-haiku'), 'claude-3-haiku@20240307');
  });

  it('sends an unknown id, an inference profile or a cloud id unchanged, and never maps for the Anthropic API', () => {
    assert.equal(providerModelId(bedrock, 'claude-sonnet-5-5'), 'anthropic.claude-sonnet-5-5');
    assert.equal(providerModelId(bedrock, 'claude-haiku-5-5'), 'anthropic.claude-haiku-5-5');
    assert.equal(providerModelId(vertex, 'claude-sonnet-5-5'), 'claude-sonnet-5-5', 'Google Cloud takes the bare id');
    for (const id of ['claude-opus-5-5', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-3-haiku-20240307-v1:0', 'claude-future-9']) {
      assert.equal(providerModelId(bedrock, id), id);
    }
    assert.equal(providerModelId(bedrock, 'claude-3-haiku'), 'claude-3-haiku', 'no Bedrock id checked for Haiku 3: sent as written');
    assert.equal(providerModelId(vertex, 'claude-sonnet-4-5@20250929'), 'claude-sonnet-4-5@20250929');
    assert.equal(providerModelId(undefined, 'claude-sonnet-4-5'), 'claude-sonnet-4-5');
  });
});
