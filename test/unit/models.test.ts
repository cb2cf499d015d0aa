// The model table (src/common/models.ts) against the facts the platform docs state, as read 2026-12-01 and
// 2026-12-02: each expected value below is written from the docs page, not from the table.
import * as assert from 'node:assert/strict';
import { KNOWN_MODEL_IDS, canonicalModelId, modelFacts } from '../../src/common/models';
import { minCacheableTokens } from '../../src/runtime/agent/cacheMinimums';

describe('model table', () => {
  it('gives the 5.5 models the documented 512-token cache minimum, 1M context and 128K output', () => {
    for (const id of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5']) {
      const facts = modelFacts(id);
      assert.equal(facts.known, true, id);
      assert.equal(facts.minCacheableTokens, 512, id);
      assert.equal(facts.contextWindow, 1_000_000, id);
      assert.equal(facts.maxOutputTokens, 128_000, id);
      assert.equal(minCacheableTokens(id), 512, `the engine reads the table for ${id}`);
    }
    assert.equal(modelFacts('claude-sonnet-5').minCacheableTokens, 1024, 'Sonnet 5 stays at 1,024 (whats-new-sonnet-5-5)');
    assert.equal(minCacheableTokens('claude-sonnet-5'), 1024);
    assert.equal(minCacheableTokens('claude-haiku-4-5-20251001'), 4096);
  });

  it('follows the prompt-caching page\'s own minimums for Opus 4.7 and Sonnet 4.6, not third-party copies', () => {
    // https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations, its list as quoted
    // verbatim on 2026-07-28 and 2026-10-08 (read 2026-12-02): "2,048 tokens for Claude Mythos Preview, Claude
    // Opus 4.7 …", "1,024 tokens for Claude Opus 4.8, Claude Sonnet 5, Claude Sonnet 4.6, …", "4,096 tokens for
    // Claude Opus 4.6 and Claude Opus 4.5", "4,096 tokens for Claude Haiku 4.5".
    const expected: Record<string, number> = {
      'claude-opus-4-7': 2048, 'claude-sonnet-4-6': 1024, 'claude-opus-4-8': 1024, 'claude-sonnet-4-5': 1024,
      'claude-opus-4-6': 4096, 'claude-opus-4-5': 4096, 'claude-haiku-4-5': 4096, 'claude-3-5-haiku': 2048,
      'claude-fable-5-1': 512, 'claude-mythos-5-1': 512, 'claude-opus-5': 512, 'claude-fable-5': 512, 'claude-mythos-5': 512,
    };
    for (const [id, tokens] of Object.entries(expected)) assert.equal(minCacheableTokens(id), tokens, id);
  });

  it('states Fable 5.2 and Mythos 5.2 as their what\'s-new page does (read 2026-12-02)', () => {
    // https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2: "a 1M token context window
    // (default and maximum) and 128k max output tokens", "adaptive thinking is always on", "The prefix check
    // applies to every account", "Only Claude Fable 5.2 and Claude Mythos 5.2 read Claude Fable 5.2 thinking blocks".
    for (const id of ['claude-fable-5-2', 'claude-mythos-5-2']) {
      const facts = modelFacts(id);
      assert.deepEqual([facts.contextWindow, facts.maxOutputTokens, facts.thinking, facts.prefixCheck, facts.acceptsBudgetTokens], [1_000_000, 128_000, 'adaptive-only', true, false], id);
      assert.ok(facts.readsThinkingFrom.includes('claude-fable-5-2'), id);
    }
    const readers = ['claude-fable-5-2', 'claude-mythos-5-2'];
    for (const id of KNOWN_MODEL_IDS.filter(m => !readers.includes(m))) assert.ok(!modelFacts(id).readsThinkingFrom.includes('claude-fable-5-2'), id);
  });

  it('dates retirements: Sonnet 4.5 retired on 2026-11-30 (sonnet-4-5/overview, read 2026-12-02); current models have none', () => {
    assert.equal(modelFacts('claude-sonnet-4-5-20250929').retiresOn, '2026-11-30');
    for (const id of ['claude-sonnet-4', 'claude-opus-4']) assert.equal(modelFacts(id).retiresOn, '2026-06-15', id);
    for (const id of ['claude-fable-5-2', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-sonnet-4-6', 'claude-haiku-4-5']) {
      assert.equal(modelFacts(id).retiresOn, undefined, id);
    }
  });

  it('states what each current model refuses', () => {
    const sonnet = modelFacts('claude-sonnet-5-5');
    assert.deepEqual([sonnet.thinking, sonnet.acceptsBudgetTokens, sonnet.acceptsDisabledThinking, sonnet.acceptsForcedToolChoice], ['adaptive-default', false, false, false]);
    assert.equal(sonnet.defaultEffort, 'high');
    const haiku = modelFacts('claude-haiku-5-5');
    assert.deepEqual([haiku.acceptsBudgetTokens, haiku.acceptsSampling, haiku.acceptsPrefill, haiku.acceptsForcedToolChoice], [false, false, false, true]);
    assert.equal(haiku.defaultEffort, 'medium');
    const opus = modelFacts('claude-opus-5-5');
    assert.deepEqual([opus.thinking, opus.acceptsDisabledThinking, opus.defaultEffort], ['adaptive-only', false, 'medium']);
    assert.equal(modelFacts('claude-fable-5-1').acceptsForcedToolChoice, false);
    const old = modelFacts('claude-sonnet-4-5');
    assert.deepEqual([old.thinking, old.acceptsBudgetTokens, old.effortLevels.length], ['manual', true, 0]);
  });

  it('knows which models run the prefix check and whose thinking they read', () => {
    for (const id of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5', 'claude-fable-5-1']) assert.equal(modelFacts(id).prefixCheck, true, id);
    assert.equal(modelFacts('claude-sonnet-5').prefixCheck, false);
    assert.ok(modelFacts('claude-opus-5-5').readsThinkingFrom.includes('claude-sonnet-5-5'), 'Opus 5.5 reads Sonnet 5.5 blocks');
    assert.ok(!modelFacts('claude-sonnet-5-5').readsThinkingFrom.includes('claude-opus-5-5'), 'Sonnet 5.5 does not read Opus 5.5 blocks');
    assert.ok(!modelFacts('claude-opus-5-5').readsThinkingFrom.includes('claude-fable-5-1'));
  });

  it('says which models take mid-conversation tool changes (not Sonnet 5)', () => {
    for (const id of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5', 'claude-opus-5', 'claude-fable-5-1', 'claude-opus-4-8']) {
      assert.equal(modelFacts(id).midConversationToolChanges, true, id);
    }
    assert.equal(modelFacts('claude-sonnet-5').midConversationToolChanges, false);
    assert.equal(modelFacts('claude-sonnet-4-5').midConversationToolChanges, false);
  });

  it('resolves dated snapshots, [1m] variants and Bedrock / Vertex ids', () => {
    assert.equal(canonicalModelId('claude-sonnet-4-5-20250929'), 'claude-sonnet-4-5');
    assert.equal(canonicalModelId('claude-3-7-sonnet-latest'), 'claude-3-7-sonnet');
    assert.equal(canonicalModelId('anthropic.claude-sonnet-5-5'), 'claude-sonnet-5-5');
    assert.equal(canonicalModelId('us.anthropic.claude-haiku-4-5-20251001-v1:0'), 'claude-haiku-4-5');
    assert.equal(canonicalModelId('anthropic.claude-opus-4-6-v1'), 'claude-opus-4-6');
    assert.equal(canonicalModelId('claude-opus-4-1@20250805'), 'claude-opus-4-1');
    assert.equal(canonicalModelId('claude-3-5-sonnet-v2@20241022'), 'claude-3-5-sonnet');
    assert.equal(canonicalModelId('claude-opus-4-0'), 'claude-opus-4');
    assert.equal(modelFacts('claude-sonnet-4-5[1m]').contextWindow, 1_000_000, 'the 1M beta widens Sonnet 4.5');
    assert.equal(modelFacts('claude-sonnet-4-5').contextWindow, 200_000);
    assert.equal(modelFacts('claude-sonnet-5-5[1m]').contextWindow, 1_000_000);
    assert.equal(modelFacts('claude-sonnet-5-5[1m]').id, 'claude-sonnet-5-5[1m]');
  });

  it('gives an unknown id cautious defaults and a note, never an error', () => {
    for (const id of ['claude-future-9', '', 'gpt-4', 'claude-sonnet-5-5x']) {
      const facts = modelFacts(id);
      assert.equal(facts.known, false, id);
      assert.match(facts.note!, /not in the model table/);
      assert.deepEqual([facts.acceptsBudgetTokens, facts.acceptsSampling, facts.acceptsForcedToolChoice, facts.acceptsPrefill, facts.effortLevels.length], [false, false, false, false, 0]);
      assert.equal(facts.prefixCheck, true, 'assumed: requests stay append-only');
      assert.equal(facts.minCacheableTokens, 1024);
    }
  });

  it('lists every current model of the docs', () => {
    for (const id of ['claude-fable-5-2', 'claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5', 'claude-sonnet-5', 'claude-fable-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-haiku-4-5']) {
      assert.ok(KNOWN_MODEL_IDS.includes(id), id);
    }
  });
});
