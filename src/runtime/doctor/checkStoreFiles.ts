// fork-agents doctor, the store's files: who owns them and their modes (the store is the user's alone:
// folders 0700, files 0600), the lock and the socket, and temporary files a killed runtime left.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { currentUid } from '../../ipc/privateFs';
import { separateSocketDir, socketPathFor } from '../../ipc/socketPath';
import { scratchLeftovers } from '../git/snapshot';
import { unfinishedClaims } from '../storeLock';
import type { DoctorContext } from './findings';
import { count, repairable, unrepairable } from './findings';

/** Folders of the store whose files are checked one by one (the checkpoint repositories: checkCheckpoints.ts). */
const FILE_FOLDERS = ['sessions', 'segments', 'lock', 'tournaments'];

export async function checkStoreFiles(ctx: DoctorContext): Promise<void> {
  const { storeDir } = ctx;
  await checkMode(ctx, storeDir, 'folder');
  for (const name of fs.readdirSync(storeDir)) {
    const full = path.join(storeDir, name);
    const stat = fs.lstatSync(full);
    if (stat.isDirectory()) {
      await checkMode(ctx, full, 'folder');
      if (FILE_FOLDERS.includes(name)) {
        for (const file of fs.readdirSync(full)) {
          const inner = path.join(full, file);
          if (fs.lstatSync(inner).isFile()) await checkMode(ctx, inner, 'file');
        }
      }
    } else if (stat.isFile()) await checkMode(ctx, full, 'file');
  }
  await checkSocket(ctx);
  await checkLeftovers(ctx);
}

export async function checkMode(ctx: DoctorContext, file: string, kind: 'folder' | 'file'): Promise<void> {
  count(ctx, kind === 'folder' ? 'folders' : 'files');
  const uid = currentUid();
  if (uid === undefined) return;
  const stat = fs.lstatSync(file);
  if (stat.isSymbolicLink()) {
    unrepairable(ctx, { check: 'modes', subject: file, found: 'a symbolic link inside the store' }, 'left as it is: remove it if you did not put it there');
    return;
  }
  if (stat.uid !== uid) {
    unrepairable(ctx, { check: 'modes', subject: file, found: `belongs to another user (uid ${stat.uid}, you are ${uid})` }, 'left as it is: only its owner or root can change it');
    return;
  }
  const want = kind === 'folder' ? 0o700 : 0o600;
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) === 0) return;
  await repairable(ctx, { check: 'modes', subject: file, found: `mode ${octal(mode)}: others can ${kind === 'folder' ? 'enter it' : 'read it'} (want ${octal(want)})` }, () => {
    fs.chmodSync(file, mode & 0o700);
    return `mode set to ${octal(mode & 0o700)}`;
  });
}

async function checkSocket(ctx: DoctorContext): Promise<void> {
  const socketDir = separateSocketDir(ctx.storeDir);
  if (socketDir && fs.existsSync(socketDir)) await checkMode(ctx, socketDir, 'folder');
  const socket = socketPathFor(ctx.storeDir);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socket);
  } catch {
    return;
  }
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid) {
    unrepairable(ctx, { check: 'socket', subject: socket, found: `the runtime's socket belongs to another user (uid ${stat.uid}); clients refuse to connect to it` }, 'left as it is: only its owner or root can remove it');
    return;
  }
  if (ctx.liveOwner !== undefined) {
    if (uid !== undefined && (stat.mode & 0o077) !== 0) {
      unrepairable(ctx, { check: 'socket', subject: socket, found: `mode ${octal(stat.mode & 0o777)}: others can connect (want 0600)` }, 'nothing: a runtime serves the store; stop it and run --repair');
    }
    return;
  }
  // Nobody owns the store, so nobody listens: what is there is a leftover of a runtime that was killed.
  await repairable(ctx, { check: 'socket', subject: socket, found: 'a socket no runtime listens on (left by a runtime that was killed)' }, () => {
    fs.rmSync(socket, { force: true });
    return 'removed';
  });
}

async function checkLeftovers(ctx: DoctorContext): Promise<void> {
  const { storeDir } = ctx;
  const temps: string[] = [...unfinishedClaims(storeDir)];
  const tempIn = (dir: string, test: (name: string) => boolean) => {
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir)) if (test(name)) temps.push(path.join(dir, name));
  };
  // Unfinished segment writes, private files replaced by rename (token, info), checkpoint repositories being made.
  tempIn(path.join(storeDir, 'segments'), name => name.endsWith('.tmp'));
  tempIn(storeDir, name => name.startsWith('.') && name.endsWith('.tmp'));
  tempIn(path.join(storeDir, 'checkpoints'), name => name.endsWith('.tmp'));
  temps.push(...await scratchLeftovers());
  count(ctx, 'temporary files', temps.length);
  if (ctx.liveOwner !== undefined && temps.length > 0) {
    // A live runtime may be writing them right now: only the scratch index folders of dead runtimes are sure leftovers.
    for (const temp of temps) ctx.findings.push({ check: 'leftover', subject: temp, status: 'note', found: 'a temporary file (a runtime serves the store: it may be writing it now)' });
    return;
  }
  for (const temp of temps) {
    await repairable(ctx, { check: 'leftover', subject: temp, found: 'a temporary file left by a runtime that was killed' }, () => {
      fs.rmSync(temp, { recursive: true, force: true });
      return 'removed';
    });
  }
}

function octal(mode: number): string {
  return '0' + mode.toString(8).padStart(3, '0');
}
