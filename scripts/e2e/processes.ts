// Child processes of a test run: each in its own process group so helpers it starts die with it.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';

export interface Group {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Settles when the group leader exits. */
  readonly exited: Promise<void>;
  /** SIGTERM the group, SIGKILL it if still alive after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<number>();
// A crash or Ctrl-C of the harness must not leave code-server or the fake behind.
process.once('exit', () => {
  for (const pid of live) killQuietly(-pid, 'SIGKILL');
});

function killQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface SpawnGroupOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
  /** Keep stdout as a pipe (it is still copied to the log). */
  pipeStdout?: boolean;
}

export function spawnGroup(command: string, args: string[], options: SpawnGroupOptions): Group {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', options.pipeStdout ? 'pipe' : log, log],
  });
  fs.closeSync(log);
  if (options.pipeStdout && child.stdout) {
    const copy = fs.createWriteStream(options.logFile, { flags: 'a' });
    child.stdout.on('data', (chunk: Buffer) => copy.write(chunk));
    child.once('exit', () => copy.end());
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command}`);
  live.add(pid);
  const exited = new Promise<void>(resolve => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  exited.then(() => live.delete(pid), () => undefined);
  return {
    child,
    logFile: options.logFile,
    exited,
    async stop(graceMs = 5000) {
      if (killQuietly(-pid, 'SIGTERM')) {
        const timer = new Promise<'timeout'>(resolve => setTimeout(() => resolve('timeout'), graceMs).unref());
        if ((await Promise.race([exited, timer])) === 'timeout') killQuietly(-pid, 'SIGKILL');
      }
      // The leader may be gone while a helper it started lingers in the group.
      killQuietly(-pid, 'SIGKILL');
      live.delete(pid);
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves when GET url answers 200; rejects after timeoutMs or when `child` exits first. */
export function waitForHttpOk(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const retry = () => {
      if (child && (child.exitCode !== null || child.signalCode !== null)) {
        reject(new Error(`${url}: the server exited (${child.exitCode ?? child.signalCode}) before answering`));
      } else if (Date.now() > deadline) {
        reject(new Error(`${url} did not answer within ${timeoutMs} ms`));
      } else {
        setTimeout(once, 150);
      }
    };
    const once = () => {
      http.get(url, res => {
        res.resume();
        if (res.statusCode === 200) resolve();
        else retry();
      }).on('error', retry);
    };
    once();
  });
}

/** The first stdout line of `child` parsed as JSON (the fake server announces its URL this way). */
export function firstJsonLine<T>(child: ChildProcess, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`${what}: ${why}`));
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      cleanup();
      try {
        resolve(JSON.parse(buffered.slice(0, newline)) as T);
      } catch {
        reject(new Error(`${what}: first line is not JSON: ${buffered.slice(0, newline)}`));
      }
    };
    const onExit = (code: number | null) => fail(`exited (${code}) before printing its address`);
    const timer = setTimeout(() => fail(`printed nothing within ${timeoutMs} ms`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Stops the runtime the extension started detached for `storeDir` (it outlives code-server by design). */
export function stopRuntimesFor(storeDir: string): number[] {
  const killed: number[] = [];
  const resolved = path.resolve(storeDir);
  for (const name of safeReaddir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.indexOf('--store');
    if (at >= 0 && argv[at + 1] && path.resolve(argv[at + 1]) === resolved && killQuietly(Number(name), 'SIGTERM')) {
      killed.push(Number(name));
    }
  }
  return killed;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
