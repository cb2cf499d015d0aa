// A second, real local user for the security tests (docs/design.md §6): created with useradd when running as root,
// removed afterwards. Its code runs as a real child process with that uid.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export interface LocalUser { name: string; uid: number; gid: number; remove(): void }

export function canCreateUsers(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

export function createLocalUser(prefix: string): LocalUser {
  const name = `${prefix}${process.pid % 100000}`;
  try {
    execFileSync('userdel', [name], { stdio: 'ignore' });
  } catch {
    // Not there: the usual case.
  }
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name], { stdio: 'ignore' });
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { name, uid, gid, remove: () => execFileSync('userdel', [name], { stdio: 'ignore' }) };
}

/** Runs a Node script as `user`; resolves with its stdout once it exits. */
export function runAs(user: LocalUser, script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, ...args], { uid: user.uid, gid: user.gid, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', chunk => (out += chunk));
    child.stderr.on('data', chunk => (err += chunk));
    child.on('error', reject);
    child.on('exit', code => (code === 0 ? resolve(out) : reject(new Error(`script as ${user.name} exited ${code}: ${err}`))));
  });
}

/** A listener run by `user` on `socketPath` that counts the bytes any client sends it. */
export interface Squatter { child: ChildProcess; ready: Promise<void>; bytesReceived(): Promise<number> }

export function squat(user: LocalUser, socketPath: string): Squatter {
  const script = `
    const net = require('node:net');
    let bytes = 0;
    const server = net.createServer(c => c.on('data', d => { bytes += d.length; }));
    server.listen(process.argv[1], () => process.stdout.write('ready\\n'));
    process.stdin.on('end', () => { process.stdout.write('bytes ' + bytes + '\\n'); process.exit(0); });
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script, socketPath], { uid: user.uid, gid: user.gid, cwd: '/', stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>(resolve => child.stdout!.on('data', chunk => {
    out += chunk;
    if (out.includes('ready\n')) resolve();
  }));
  return {
    child,
    ready,
    bytesReceived: () => new Promise(resolve => {
      child.on('exit', () => resolve(Number(/bytes (\d+)/.exec(out)?.[1] ?? NaN)));
      child.stdin!.end();
    }),
  };
}
