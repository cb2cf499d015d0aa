// fork-agents doctor, the history: every session and fork loaded the way the runtime loads them (the same
// mending: a damaged line's entry read back from its sealed segment, or what it left open closed), and every
// sealed segment checked against its hash. --repair writes what loading mended as a repair record after the
// damage (the file stays append-only) and cuts a torn last line, as a runtime's start would.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { describeDamage, unrepaired } from '../session/damage';
import { SessionStore } from '../session/sessionStore';
import type { Session } from '../session/session';
import type { DoctorContext } from './findings';
import { count, repairable, unrepairable } from './findings';

export async function checkHistory(ctx: DoctorContext): Promise<void> {
  // Read-only unless repairing: beside a live runtime, loading must neither cut a line it is writing nor tighten a folder.
  const store = new SessionStore(ctx.storeDir, { readOnly: !ctx.repair });
  checkSegments(ctx, store);
  for (const id of store.ids()) {
    count(ctx, id.startsWith('f-') ? 'forks' : 'sessions');
    let session: Session;
    try {
      session = await store.get(id);
    } catch (error) {
      unrepairable(ctx, { check: 'session', subject: id, found: `cannot be read: ${error instanceof Error ? error.message : String(error)}` }, 'left as it is');
      continue;
    }
    await checkSession(ctx, session);
    store.drop(id);
  }
}

async function checkSession(ctx: DoctorContext, session: Session): Promise<void> {
  const check = session.header.parent ? 'fork' : 'session';
  if (session.unavailable) {
    // Its file stays as it is: listed as failed, with this reason, by the runtime.
    unrepairable(ctx, { check, subject: session.id, found: session.unavailable }, 'left as it is (listed as failed with this reason); delete it with fork-agents delete --fork ' + session.id);
  }
  if (session.tornBytes > 0) {
    const found = `its last line is torn (${session.tornBytes} bytes never completed)`;
    // Repairing, the store was loaded as a runtime loads it: the torn line is already cut.
    if (ctx.repair) ctx.findings.push({ check, subject: session.id, status: 'repaired', found, did: 'cut back to the last complete line' });
    else if (ctx.liveOwner !== undefined) ctx.findings.push({ check, subject: session.id, status: 'note', found: `${found}: the runtime serving the store may be writing it now` });
    else unrepairable(ctx, { check, subject: session.id, found }, 'nothing (run with --repair; the next runtime start cuts it too)');
  }
  for (const damage of session.damage.filter(d => d.repaired)) {
    ctx.findings.push({ check, subject: session.id, status: 'note', found: describeDamage(damage) });
  }
  const open = unrepaired(session.damage);
  if (open.length === 0 || session.unavailable) return;
  const found = open.map(describeDamage).join('; ');
  await repairable(ctx, { check, subject: session.id, found }, () => {
    const lines = session.repairDamage();
    return `wrote a repair record after line(s) ${lines.join(', ')}: the history as mended above, so no later load depends on mending it again`;
  });
}

function checkSegments(ctx: DoctorContext, store: SessionStore): void {
  for (const hash of store.segments.list()) {
    count(ctx, 'segments');
    const file = store.segments.fileOf(hash);
    let actual: string;
    try {
      actual = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    } catch (error) {
      unrepairable(ctx, { check: 'segment', subject: file, found: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` }, 'left as it is');
      continue;
    }
    if (actual !== hash) {
      unrepairable(ctx, { check: 'segment', subject: file, found: `damaged: its bytes hash to ${actual.slice(0, 12)}…` }, 'left as it is: forks that inherit from it are listed as failed; a session whose line it would mend is closed instead');
    }
  }
}
