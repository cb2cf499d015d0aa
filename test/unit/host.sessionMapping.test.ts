import { strict as assert } from 'node:assert';
import { continuationFrom, isChatSessionMetadata, sessionMetadata } from '../../src/host/chat/sessionMapping';

const ME = 'fork-agents.fork';
const ask = (prompt: string) => ({ prompt, participant: ME, references: [] });
const answer = (metadata?: object, participant = ME) => ({ participant, response: [], result: metadata ? { metadata } : {} });

describe('host: chat ↔ session mapping', () => {
  it('starts a new session when the history has no response of ours', () => {
    assert.deepEqual(continuationFrom([], ME), {});
    assert.deepEqual(continuationFrom([ask('hi')], ME), {});
    assert.deepEqual(continuationFrom([ask('hi'), answer()], ME), {});
  });

  it('continues the session of the last response and rewinds to its last entry', () => {
    const history = [
      ask('one'), answer({ sessionId: 's1', promptEntryId: 'e1', lastEntryId: 'e3' }),
      ask('two'), answer({ sessionId: 's1', promptEntryId: 'e4', lastEntryId: 'e9' }),
    ];
    assert.deepEqual(continuationFrom(history, ME), { sessionId: 's1', afterEntryId: 'e9' });
  });

  it('follows the history when the user removed the later turns: no ghost turns', () => {
    // The runtime has e4..e9 from the removed second turn; the chat now ends at the first answer.
    const history = [ask('one'), answer({ sessionId: 's1', promptEntryId: 'e1', lastEntryId: 'e3' })];
    assert.deepEqual(continuationFrom(history, ME), { sessionId: 's1', afterEntryId: 'e3' });
  });

  it('skips responses without our metadata (a /fork reply, an early failure) and other participants', () => {
    const history = [
      ask('one'), answer({ sessionId: 's1', lastEntryId: 'e3' }),
      ask('/fork x'), answer(),
      ask('other'), answer({ sessionId: 'theirs', lastEntryId: 'x' }, 'someone.else'),
      answer({ unrelated: true }),
    ];
    assert.deepEqual(continuationFrom(history, ME), { sessionId: 's1', afterEntryId: 'e3' });
  });

  it('accepts only well-formed metadata', () => {
    assert.equal(isChatSessionMetadata({ sessionId: 's' }), true);
    assert.equal(isChatSessionMetadata({ sessionId: '' }), false);
    assert.equal(isChatSessionMetadata({ sessionId: 3 }), false);
    assert.equal(isChatSessionMetadata({ sessionId: 's', lastEntryId: 4 }), false);
    assert.equal(isChatSessionMetadata(null), false);
  });

  it('stamps only what is known', () => {
    assert.equal(sessionMetadata({}), undefined);
    assert.deepEqual(sessionMetadata({ sessionId: 's', promptEntryId: undefined, lastEntryId: 'e2' }), { sessionId: 's', lastEntryId: 'e2' });
    const usage = { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 };
    const full = { sessionId: 's', promptEntryId: 'p', lastEntryId: 'l', usage };
    assert.deepEqual(JSON.parse(JSON.stringify(sessionMetadata(full))), full);
  });
});
