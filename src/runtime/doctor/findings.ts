// What fork-agents doctor says about a store: one finding per thing it looked at that is wrong (or was
// repaired, or is worth knowing), in the words the user reads, plus what it checked.

export type FindingStatus =
  /** Wrong and still wrong: without --repair, or nothing can mend it. */
  | 'problem'
  /** Was wrong; --repair mended it (`did` says how). */
  | 'repaired'
  /** Worth knowing, not wrong (an earlier repair, a live runtime's write in progress). */
  | 'note';

export type FindingCheck = 'store' | 'lock' | 'socket' | 'modes' | 'leftover' | 'segment' | 'session' | 'fork' | 'checkpoint';

export interface Finding {
  check: FindingCheck;
  /** The session or fork id, or the path. */
  subject: string;
  status: FindingStatus;
  found: string;
  /** What --repair did, or why it did nothing. */
  did?: string;
}

export interface DoctorContext {
  storeDir: string;
  repair: boolean;
  /** The live runtime serving the store (only when not repairing: a repair runs on a store nobody serves). */
  liveOwner?: number;
  findings: Finding[];
  checked: Record<string, number>;
}

export function count(ctx: DoctorContext, what: string, n = 1): void {
  ctx.checked[what] = (ctx.checked[what] ?? 0) + n;
}

/** A problem --repair can fix with `fix` (which returns what it did); without --repair it is reported only. */
export async function repairable(ctx: DoctorContext, finding: Omit<Finding, 'status' | 'did'>, fix: () => string | Promise<string>): Promise<void> {
  if (!ctx.repair) {
    ctx.findings.push({ ...finding, status: 'problem', did: 'nothing (run with --repair)' });
    return;
  }
  try {
    ctx.findings.push({ ...finding, status: 'repaired', did: await fix() });
  } catch (error) {
    ctx.findings.push({ ...finding, status: 'problem', did: `repair failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** A problem no repair mends here: `why` says what the user can do. */
export function unrepairable(ctx: DoctorContext, finding: Omit<Finding, 'status' | 'did'>, why: string): void {
  ctx.findings.push({ ...finding, status: 'problem', did: why });
}
