// The transcript document shows each response's cost and the session's total, or says no price is known.
import * as assert from 'node:assert/strict';
import type { TranscriptResult } from '../../src/common/protocol/runtime';
import { transcriptText } from '../../src/host/panel/transcriptText';

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 };
const transcript = (costs?: TranscriptResult['costs']): TranscriptResult => ({
  header: { id: 'f-1', createdAt: '', root: '/w', title: 'a fork', systemPrompt: '', tools: [], settings: { model: 'claude-sonnet-5-5', maxTokens: 100 } },
  entries: [{ id: 'e-1', kind: 'response', time: 't', message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }, usage }],
  running: false,
  costs,
});

describe('panel: transcript document costs', () => {
  it('shows the cost of each request and in total, with where the price came from', () => {
    const text = transcriptText(transcript({ entries: { 'e-1': { usd: 0.0042, uncachedUsd: 0.012 } }, total: { usd: 0.0042, uncachedUsd: 0.012 }, model: 'claude-sonnet-5-5', priceFrom: 'setting' }));
    assert.match(text, /^Cost: \$0\.0042, uncached \$0\.012, saved \$0\.0078 \(price from fork\.prices\)$/m);
    assert.match(text, /_usage: 10 in, 100 cache read, 0 cache write, 5 out · cost \$0\.0042, uncached \$0\.012, saved \$0\.0078_/);
  });

  it('says so when no price is known', () => {
    const text = transcriptText(transcript());
    assert.match(text, /^Cost: no price known for claude-sonnet-5-5 \(set the fork.prices setting\)$/m);
    assert.doesNotMatch(text, /\$/);
  });
});
