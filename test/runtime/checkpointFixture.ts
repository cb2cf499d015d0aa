// One chat on the runtime process over a fresh folder, for the checkpoint tests: the fake model plays
// each turn's scripted tool calls, then answers; forks answer with a short report.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { SendResult } from '../../src/common/protocol/runtime';
import type { ScriptedTurn } from '../fakes/anthropicServer';
import { initRepo, isForkRequest, write } from './gitRepo';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';

export const writeFile = (file: string, content: string): ScriptedTurn => call(['write_file', { path: file, content }]);
export const bash = (command: string): ScriptedTurn => call(['bash', { command }]);

export interface CheckpointFixture {
  /** Starts the runtime over a fresh folder holding `files`: one commit of them, or (`repo` false) plain files. */
  start(repo: boolean, files?: Record<string, string>): Promise<void>;
  /** One chat turn: the prompt, then the scripted model turns (tool calls), then an answer. */
  turn(sessionId: string | undefined, prompt: string, ...script: ScriptedTurn[]): Promise<SendResult>;
  /** Scripted model turns for the next request sent some other way than `turn`. */
  queue(...script: ScriptedTurn[]): void;
  readonly h: Harness;
  /** The folder's real path (what the runtime reports). */
  readonly root: string;
}

/** Call inside `describe`: the runtime of each test is disposed after it. */
export function checkpointFixture(): CheckpointFixture {
  let harness: Harness | undefined;
  let root = '';
  let turns: ScriptedTurn[] = [];
  afterEach(() => harness?.dispose());
  return {
    async start(repo, files = { 'README.md': 'readme\n' }) {
      harness = await startHarness();
      root = fs.realpathSync(harness.root);
      if (repo) initRepo(root, files);
      else for (const [name, content] of Object.entries(files)) write(root, name, content);
      turns = [];
      harness.fake.setResponder(request => (isForkRequest(request) ? say('Scope: checked.\nResult: done.') : turns.shift() ?? say('ok')));
    },
    async turn(sessionId, prompt, ...script) {
      turns.push(...script, say(`done: ${prompt}`));
      const result = await this.h.send(prompt, sessionId ? { sessionId } : {});
      assert.equal(result.stopReason, 'end_turn', JSON.stringify(result.error));
      return result;
    },
    queue(...script) {
      turns.push(...script);
    },
    get h() {
      if (!harness) throw new Error('checkpointFixture: start() first');
      return harness;
    },
    get root() {
      return root;
    },
  };
}
