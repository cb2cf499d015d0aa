// A tournament's record: one append-only JSON-lines file per group in `<store>/tournaments/` (0600 in a
// 0700 folder, like transcripts). The start, each attempt's verify result, the verdict and what the user
// did are appended as they happen; the group's state is the fold of its records.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Budget } from '../../../common/budget';
import type { TournamentSummary, TournamentVerdict, VerifyResult } from '../../../common/tournament';
import { ensurePrivateDir } from '../../../ipc/privateFs';
import { JsonlWriter, dropTornTail, readJsonl } from '../../session/jsonl';
import type { Usage } from '../../../common/transcript';

export type TournamentRecord =
  | { type: 'start'; id: string; parentSessionId: string; directive: string; forkIds: string[]; models?: string[]; verify?: string; budget?: Budget; createdAt: string }
  | { type: 'verify'; forkId: string; result: VerifyResult }
  | { type: 'judge'; usage: Usage; model: string }
  | { type: 'verdict'; verdict: TournamentVerdict }
  | { type: 'applied'; time: string; forkIds: string[] };

export interface LoadedTournament {
  summary: TournamentSummary;
  verify: Map<string, VerifyResult>;
  judgeUsage?: Usage;
}

export class TournamentLog {
  private readonly writers = new Map<string, JsonlWriter>();
  private readonly dir: string;

  constructor(storeDir: string) {
    this.dir = path.join(storeDir, 'tournaments');
  }

  append(groupId: string, record: TournamentRecord): void {
    let writer = this.writers.get(groupId);
    if (!writer) {
      ensurePrivateDir(this.dir);
      writer = new JsonlWriter(this.fileOf(groupId));
      this.writers.set(groupId, writer);
    }
    writer.append(record);
  }

  /** Every group on disk, folded; a file without its start record is skipped. */
  loadAll(): LoadedTournament[] {
    if (!fs.existsSync(this.dir)) return [];
    const loaded: LoadedTournament[] = [];
    for (const name of fs.readdirSync(this.dir).filter(n => n.endsWith('.jsonl'))) {
      const file = path.join(this.dir, name);
      const { records, tornBytes } = readJsonl<TournamentRecord>(file);
      dropTornTail(file, tornBytes);
      const folded = fold(records);
      if (folded) loaded.push(folded);
    }
    return loaded;
  }

  private fileOf(groupId: string): string {
    if (!/^t-[0-9a-f-]+$/.test(groupId)) throw new Error(`Not a tournament id: ${groupId}`);
    return path.join(this.dir, `${groupId}.jsonl`);
  }
}

export function fold(records: readonly TournamentRecord[]): LoadedTournament | undefined {
  const start = records.find((r): r is Extract<TournamentRecord, { type: 'start' }> => r.type === 'start');
  if (!start) return undefined;
  const { type: _type, ...fields } = start;
  const loaded: LoadedTournament = { summary: { ...fields }, verify: new Map() };
  for (const record of records) {
    if (record.type === 'verify') loaded.verify.set(record.forkId, record.result);
    if (record.type === 'judge') loaded.judgeUsage = record.usage;
    if (record.type === 'verdict') loaded.summary.verdict = record.verdict;
    if (record.type === 'applied') loaded.summary.appliedAt = record.time;
  }
  return loaded;
}
