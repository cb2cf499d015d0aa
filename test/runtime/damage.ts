// Damage done to a store's files as a failing disk or a stray editor would, for the tests of what loading
// and `doctor` make of it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import { killRuntime } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

/** Cuts the transcript's tool_results line to 200 characters plus garbage; returns its 1-based number. */
export function damageToolResultsLine(file: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex(line => line.includes('"kind":"tool_results"'));
  assert.ok(index > 0, 'the transcript has a tool_results line');
  lines[index] = lines[index].slice(0, 200) + '\u0000garbage{{';
  fs.writeFileSync(file, lines.join('\n'));
  return index + 1;
}

/** A tool_result block as the fake received it. */
export interface SentToolResult { type: string; content?: unknown }

/**
 * What the damage tests do to a harness's store: `readExchange` runs one read_file exchange (a transcript
 * with a tool_results line to damage), `damageToolResults` damages that line of a session's file, and
 * `lastToolResults` reads the tool_result blocks of the last request the fake received.
 */
export function damageTools(harness: () => Harness) {
  const sessionFile = (id: string) => path.join(harness().storeDir, 'sessions', `${id}.jsonl`);
  return {
    sessionFile,
    damageToolResults: (id: string): number => damageToolResultsLine(sessionFile(id)),
    readExchange: async (prompt = 'read the notes'): Promise<string> => {
      const h = harness();
      fs.writeFileSync(path.join(h.root, 'notes.txt'), 'the notes say 42');
      let turn = 0;
      h.fake.setResponder(() => (turn++ === 0 ? call(['read_file', { path: 'notes.txt' }]) : say('read it')));
      const first = await h.send(prompt);
      assert.equal(first.stopReason, 'end_turn');
      return first.sessionId;
    },
    /**
     * A chat with one completed fork, the runtime killed, then the fork's launch record (line 2) torn (the
     * crash came while it was written: nothing after it) or damaged (later lines stay). Returns the file's text.
     */
    damageLaunchRecord: async (how: 'torn' | 'damaged'): Promise<{ sessionId: string; forkId: string; text: string }> => {
      const h = harness();
      h.fake.setResponder(r => say(r.rawBody.includes('<fork-boilerplate>') ? 'Scope: done.' : 'noted'));
      const { sessionId } = await h.send('hello');
      const fork = await sendRequest(h.client.endpoint, forkStart, { sessionId, directive: 'report', isolation: 'shared' });
      assert.equal((await sendRequest(h.client.endpoint, forkWait, { forkId: fork.id })).state, 'completed');
      await killRuntime(h.runtimePid());
      const lines = fs.readFileSync(sessionFile(fork.id), 'utf8').split('\n');
      assert.match(lines[1], /"type":"bootstrap"/);
      const text = how === 'torn' ? `${lines[0]}\n${lines[1].slice(0, lines[1].length / 2)}` : [lines[0], 'x' + lines[1].slice(1), ...lines.slice(2)].join('\n');
      fs.writeFileSync(sessionFile(fork.id), text);
      return { sessionId, forkId: fork.id, text };
    },
    lastToolResults: (): SentToolResult[] => (JSON.parse(harness().fake.requests.at(-1)!.rawBody).messages as { content: SentToolResult[] | string }[])
      .flatMap(m => (typeof m.content === 'string' ? [] : m.content)).filter(b => b.type === 'tool_result'),
  };
}
