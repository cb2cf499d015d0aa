// fork-agents doctor: `node runtime.js --doctor --store DIR [--repair] [--json]`, run by the CLI. The
// runtime's own code looks at the store (sessions loaded and mended as the runtime loads them), so there is
// one recovery, not two. Without --repair it only reads, and may run beside a live runtime; --repair first
// takes the store's lock (storeLock.ts), so it never writes a store a runtime serves.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runtimeInfoPath, socketPathFor } from '../../ipc/socketPath';
import { socketAccepts } from '../../ipc/socketProbe';
import { silenceLog } from '../log';
import { lockStore, storeOwner } from '../storeLock';
import { recoverStarts } from '../session/startJournal';
import { START_JOURNAL } from '../session/sessionStore';
import { checkCheckpoints } from './checkCheckpoints';
import { checkHistory } from './checkHistory';
import { checkStoreFiles } from './checkStoreFiles';
import type { DoctorContext, Finding } from './findings';

/** Exit codes, as `fork-agents doctor --help` lists them. */
export const DOCTOR_EXIT = {
  /** Nothing wrong was found, or everything found was repaired. */
  healthy: 0,
  /** The doctor could not look (no store there, an error). */
  failed: 1,
  /** Problems remain: run with --repair, or they need the user (see each finding). */
  problems: 3,
  /** --repair refused: a runtime serves the store. Nothing was changed. */
  busy: 4,
} as const;

export async function doctorMain(argv: string[]): Promise<number> {
  const value = (name: string) => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const repair = argv.includes('--repair');
  const json = argv.includes('--json');
  const given = value('--store');
  if (!given) return fail('--store DIR is needed');
  const storeDir = path.resolve(given);
  if (!fs.existsSync(storeDir) || !fs.statSync(storeDir).isDirectory()) return fail(`no store at ${storeDir}`);
  // What loading finds is reported below, once, in the doctor's words.
  silenceLog();
  const ctx: DoctorContext = { storeDir, repair, findings: [], checked: {} };
  if (repair) {
    const lockDir = path.join(storeDir, 'lock');
    const lockMode = fs.existsSync(lockDir) ? fs.statSync(lockDir).mode & 0o777 : undefined;
    if (!lockStore(storeDir) || await socketAccepts(socketPathFor(storeDir))) {
      const pid = storeOwner(storeDir) ?? infoPid(storeDir);
      process.stderr.write(`fork-agents doctor: a runtime${pid ? ` (pid ${pid})` : ''} serves ${storeDir}; nothing was changed. Close the editors using the store; the runtime then stops by itself after 10 minutes with no client and no running fork${pid ? `, or stop it now with \`kill ${pid}\` (its running forks resume when a runtime next starts)` : ''}. Or run without --repair to only check.\n`);
      return DOCTOR_EXIT.busy;
    }
    // Taking the lock made its folder private if it was not: said here, since the mode check comes after.
    if (lockMode !== undefined && (lockMode & 0o077) !== 0) {
      ctx.findings.push({ check: 'modes', subject: lockDir, status: 'repaired', found: `mode 0${lockMode.toString(8)}: others could enter it (want 0700)`, did: 'mode set to 0700 when taking the lock' });
    }
  } else {
    ctx.liveOwner = storeOwner(storeDir) ?? (await socketAccepts(socketPathFor(storeDir)) ? infoPid(storeDir) ?? -1 : undefined);
  }
  try {
    // What a runtime does first when it owns the store: fork files a crash left only in the start journal are written back.
    if (repair && fs.existsSync(path.join(storeDir, 'sessions'))) {
      const recovered = recoverStarts(path.join(storeDir, START_JOURNAL), path.join(storeDir, 'sessions'));
      for (const id of recovered.written) ctx.findings.push({ check: 'fork', subject: id, status: 'repaired', found: 'its file was missing or torn; the start journal held it', did: 'written back from the start journal' });
      for (const problem of recovered.problems) ctx.findings.push({ check: 'fork', subject: START_JOURNAL, status: 'problem', found: problem });
    }
    await checkStoreFiles(ctx);
    await checkHistory(ctx);
    await checkCheckpoints(ctx);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  const problems = ctx.findings.filter(f => f.status === 'problem').length;
  const code = problems > 0 ? DOCTOR_EXIT.problems : DOCTOR_EXIT.healthy;
  if (json) printJson(ctx, code);
  else printText(ctx, problems);
  return code;
}

function printJson(ctx: DoctorContext, exitCode: number): void {
  const line = (value: unknown) => process.stdout.write(JSON.stringify(value) + '\n');
  for (const finding of ctx.findings) line({ type: 'finding', ...finding });
  const by = (status: Finding['status']) => ctx.findings.filter(f => f.status === status).length;
  line({
    type: 'result', store: ctx.storeDir, repair: ctx.repair, liveRuntime: ctx.liveOwner ?? null, checked: ctx.checked,
    problems: by('problem'), repaired: by('repaired'), notes: by('note'), exitCode,
  });
}

function printText(ctx: DoctorContext, problems: number): void {
  const out = (text: string) => process.stdout.write(text + '\n');
  const checked = Object.entries(ctx.checked).map(([what, n]) => `${n} ${what}`).join(', ');
  out(`store ${ctx.storeDir}: checked ${checked || 'nothing (empty)'}`);
  if (ctx.liveOwner !== undefined) out(`read only: a runtime${ctx.liveOwner > 0 ? ` (pid ${ctx.liveOwner})` : ''} serves this store; stop it to repair`);
  for (const f of ctx.findings) out(`${f.status.padEnd(8)} ${f.check} ${f.subject}: ${f.found}${f.did ? ` — ${f.did}` : ''}`);
  const repaired = ctx.findings.filter(f => f.status === 'repaired').length;
  if (problems === 0 && repaired === 0) out('no problems found');
  else out(`${problems} problem(s) left, ${repaired} repaired${problems > 0 && !ctx.repair ? ' (fork-agents doctor --repair mends what it can)' : ''}`);
}

function fail(message: string): number {
  process.stderr.write(`fork-agents doctor: ${message}\n`);
  return DOCTOR_EXIT.failed;
}

function infoPid(storeDir: string): number | undefined {
  try {
    const pid = (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}
