// Sessions are streamed in a chunk at a time. The streamed reader must see exactly what the
// one-shot reader (readJsonl) sees: records, skipped lines and the torn tail's size in bytes, whatever
// falls on a chunk boundary (a multi-byte character, a line several chunks long).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readJsonl } from '../../src/runtime/session/jsonl';
import { streamJsonl } from '../../src/runtime/session/streamJsonl';

describe('session: streamed JSONL reading matches the one-shot reader', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-stream-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function both(text: string) {
    const file = path.join(dir, 'f.jsonl');
    fs.writeFileSync(file, text);
    const records: unknown[] = [];
    const streamed = await streamJsonl(file, record => void records.push(record));
    return { streamed: { ...streamed, records }, once: readJsonl(file) };
  }

  it('reads records split across chunks, multi-byte characters and very long lines as readJsonl does', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(JSON.stringify({ n: i, text: `é→ ${'ü'.repeat(i % 97)} 🙂 ${i}` }));
    lines.splice(1500, 0, JSON.stringify({ long: 'ß'.repeat(300 * 1024) }), '', '   ', '{not json', JSON.stringify({ after: true }));
    const { streamed, once } = await both(lines.join('\n') + '\n' + '{"torn": "ä→');
    assert.deepEqual(streamed.records, once.records);
    assert.equal(streamed.records.length, 3002);
    assert.equal(streamed.skippedLines, 1);
    assert.equal(streamed.skippedLines, once.skippedLines);
    assert.equal(streamed.tornBytes, Buffer.byteLength('{"torn": "ä→'));
    assert.equal(streamed.tornBytes, once.tornBytes);
  });

  it('a file without a newline is all torn tail; an empty file has none', async () => {
    const torn = await both('{"a": "' + 'x'.repeat(200 * 1024) + '"}');
    assert.deepEqual(torn.streamed.records, []);
    assert.equal(torn.streamed.tornBytes, torn.once.tornBytes);
    const empty = await both('');
    assert.deepEqual([empty.streamed.records.length, empty.streamed.tornBytes], [0, 0]);
  });
});
