// A record's line (recordBytes.ts): byte for byte what JSON.stringify writes, with a bootstrap's inline
// entries encoded once per entry however many siblings write them.
import { strict as assert } from 'node:assert';
import type { Entry } from '../../src/common/transcript';
import { recordLine } from '../../src/runtime/session/recordBytes';
import type { SessionRecord } from '../../src/runtime/session/records';
import { closingEntry, finishedParent, text } from './forkFixtures';

const stringified = (record: SessionRecord) => JSON.stringify(record) + '\n';

function bootstrapOf(inline: Entry[], extra: Record<string, unknown> = {}): SessionRecord {
  const closing = closingEntry({ role: 'user', content: [text('DIRECTIVE: "quoted" \u2028 ✓ review the store.')] });
  return {
    type: 'bootstrap',
    bootstrap: {
      history: { head: 'a'.repeat(64), parts: [{ from: 0, to: 12 }, { entries: inline }] },
      fork: { id: 'f-1', name: 'one', state: 'queued' } as never,
      closing,
      parentRequestEnd: inline.length - 1,
      callId: undefined,
      policy: { approvalMode: 'auto', sandbox: { mode: 'auto' } },
      ...extra,
    },
  };
}

describe('session record line', () => {
  it('is byte for byte what JSON.stringify writes, for a bootstrap with inline entries and for other records', () => {
    const entries = finishedParent().map(entry => Object.freeze(entry));
    const records: SessionRecord[] = [
      bootstrapOf(entries),
      bootstrapOf([]),
      bootstrapOf(entries.slice(0, 1), { callId: 'toolu_1' }),
      { type: 'bootstrap', bootstrap: { history: { head: null, parts: [{ entries }, { from: 3, to: 4 }, { entries: entries.slice(1) }] }, fork: { id: 'f-2' } as never, closing: entries[0], parentRequestEnd: -1 } },
      { type: 'bootstrap', bootstrap: { fork: { id: 'f-3' } as never, closing: entries[0], parentRequestEnd: 0, inherited: entries } },
      { type: 'status', status: { state: 'queued', time: '2026-12-03T07:00:00.000Z' } },
    ];
    for (const record of records) assert.equal(recordLine(record).toString('utf8'), stringified(record));
  });

  it('encodes an entry once for every sibling that writes it, and an entry not frozen each time', () => {
    const frozen = Object.freeze(finishedParent()[0]);
    const first = recordLine(bootstrapOf([frozen]));
    // The same entry, changed behind the encoder's back: a frozen one cannot be, so its cached bytes stand.
    const open: Entry = { ...finishedParent()[0] };
    const before = recordLine(bootstrapOf([open])).toString('utf8');
    open.time = '1999-01-01T00:00:00.000Z';
    const after = recordLine(bootstrapOf([open])).toString('utf8');
    assert.notEqual(before, after);
    assert.equal(after, stringified(bootstrapOf([open])));
    assert.equal(recordLine(bootstrapOf([frozen])).toString('utf8'), first.toString('utf8'));
  });
});
