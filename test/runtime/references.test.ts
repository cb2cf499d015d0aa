// Chat references become content of the prompt entry (within the cap, with a note when cut), and the
// model picked in the Chat view is the one a new session records and requests name.
import * as assert from 'node:assert/strict';
import { MAX_REFERENCE_CHARS } from '../../src/common/references';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { say } from './script';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('runtime: chat references and the picked model', function () {
  this.timeout(30_000);
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.dispose());

  it('sends #file, #selection and image references in the prompt entry, cut to the cap with a note', async () => {
    h.fake.enqueue(say('seen'));
    const result = await h.send('explain these', {
      model: 'claude-opus-4-8',
      references: [
        { kind: 'file', path: 'src/a.ts', text: 'export const a = 1;\n' },
        { kind: 'file', path: 'src/b.ts', text: 'const b = 2;', range: { startLine: 3, endLine: 3 } },
        { kind: 'image', name: 'shot.png', mimeType: 'image/png', data: PNG },
        { kind: 'text', name: 'huge', text: 'x'.repeat(MAX_REFERENCE_CHARS + 5) },
      ],
    });
    assert.equal(result.text, 'seen');
    const sent = h.fake.requests[0].body;
    assert.equal(sent.model, 'claude-opus-4-8', 'the picked model');
    const all = sent.messages.at(-1).content as { type: string; text?: string; source?: { media_type: string } }[];
    // The startup entry shares the first user message; the prompt entry's blocks follow it.
    const content = all.slice(all.findIndex(b => b.text === 'explain these'));
    assert.equal(content[0].text, 'explain these');
    assert.equal(content[1].text, '<reference path="src/a.ts">\nexport const a = 1;\n\n</reference>');
    assert.equal(content[2].text, '<reference path="src/b.ts" lines="3-3">\nconst b = 2;\n</reference>');
    assert.equal(content[4].type, 'image');
    assert.equal(content[4].source!.media_type, 'image/png');
    const huge = content[5].text!;
    assert.ok(huge.length < MAX_REFERENCE_CHARS + 50, 'cut to the cap');
    assert.match(content.at(-1)!.text!, /References were cut to fit 100000 characters: huge \(100005 characters/);
    const { header, entries } = await h.transcript(result.sessionId);
    assert.equal(header.settings.model, 'claude-opus-4-8', 'recorded in the session');
    assert.equal(entries.find(e => e.kind === 'prompt')!.message.content.length, content.length, 'the prompt entry holds them (forks inherit it)');

    h.fake.enqueue(say('same model'));
    await h.send('and now?', { sessionId: result.sessionId, model: 'claude-haiku-4-5' });
    assert.equal(h.fake.requests[1].body.model, 'claude-opus-4-8', 'a session keeps its model (cache parity)');
  });
});
