// Runtime process entry (docs/design.md §2): serves one store on a local socket to any number of clients,
// detached from the editor so turns survive a window reload. Never imports `vscode`.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { SocketMessageReader, createMessageConnection } from 'vscode-jsonrpc/node';
import { SocketWriter } from './socketWriter';
import { ResponseError } from 'vscode-jsonrpc/node';
import { PROTOCOL_VERSION, RuntimeErrorCode, mcpState } from '../common/protocol/runtime';
import type { RuntimeInfo } from '../common/protocol/runtime';
import { socketAccepts } from '../ipc/socketProbe';
import { ClientConnection } from './clientConnection';
import { registerCancel } from './handlers/cancel';
import { registerCompact } from './handlers/compact';
import { registerConfigure } from './handlers/configure';
import { registerLifecycle } from './handlers/lifecycle';
import { registerList } from './handlers/list';
import { registerModelChat } from './handlers/modelChat';
import { registerSend } from './handlers/send';
import { registerTranscript } from './handlers/transcript';
import { registerForkAnnounce } from './handlers/forkAnnounce';
import { registerForkHistory } from './handlers/forkHistory';
import { registerForkCancel } from './handlers/forkCancel';
import { registerForkList } from './handlers/forkList';
import { registerForkSend } from './handlers/forkSend';
import { registerForkStart } from './handlers/forkStart';
import { registerForkWait } from './handlers/forkWait';
import { registerForkApply } from './handlers/forkApply';
import { registerForkBaseFile } from './handlers/forkBaseFile';
import { registerForkDiscard } from './handlers/forkDiscard';
import { registerForkKeep } from './handlers/forkKeep';
import { registerForkReview } from './handlers/forkReview';
import { registerWorktreeList } from './handlers/worktreeList';
import { registerSessionDelete } from './handlers/sessionDelete';
import { registerSessionRewind } from './handlers/sessionRewind';
import { registerSessionTurnFiles } from './handlers/sessionTurnFiles';
import { registerSessionDiffSince } from './handlers/sessionDiffSince';
import { registerSessionCheckpointFile } from './handlers/sessionCheckpointFile';
import { registerStoreInfo } from './handlers/storeInfo';
import { registerTournamentStart } from './handlers/tournamentStart';
import { registerTournamentCompare } from './handlers/tournamentCompare';
import { registerTournamentWait } from './handlers/tournamentWait';
import { registerTournamentList } from './handlers/tournamentList';
import { registerTournamentDiff } from './handlers/tournamentDiff';
import { registerTournamentApply } from './handlers/tournamentApply';
import { registerTournamentCancel } from './handlers/tournamentCancel';
import { TournamentManager } from './fork/tournament/tournamentManager';
import { collectGarbage } from './session/retention';
import { ApprovalRouter } from './approvals';
import { ForkManager } from './fork/forkManager';
import { IdleExit } from './idleExit';
import { ensurePrivateDir, writePrivateFile } from '../ipc/privateFs';
import { runtimeInfoPath, runtimeTokenPath } from '../ipc/socketPath';
import { openServingFolder } from '../ipc/socketFolder';
import { log } from './log';
import { mcpHub } from './mcp/hub';
import type { RuntimeContext } from './runtimeContext';
import { startFlushGate } from './session/startFlushGate';
import { SessionStore } from './session/sessionStore';
import { lockStore } from './storeLock';
import { limitFrames } from './frameLimit';
import { enableCompileCache } from './compileCache';
import { removeScratchLeftovers } from './git/snapshot';
import { TurnRegistry } from './turns';
import { killAllCommands } from './tools/bash';
import { doctorMain } from './doctor/doctorMain';

/** Registered once a client has presented the token at `initialize` (registerLifecycle comes first, alone). */
const HANDLERS = [
  registerConfigure, registerSend, registerCompact, registerCancel, registerList, registerTranscript,
  registerForkStart, registerForkList, registerForkCancel, registerForkSend, registerForkWait, registerForkAnnounce, registerForkHistory,
  registerForkReview, registerForkBaseFile, registerForkApply, registerForkKeep, registerForkDiscard, registerWorktreeList,
  registerSessionDelete, registerSessionRewind, registerSessionTurnFiles, registerSessionDiffSince, registerSessionCheckpointFile, registerStoreInfo, registerModelChat,
  registerTournamentStart, registerTournamentCompare, registerTournamentWait, registerTournamentList, registerTournamentDiff,
  registerTournamentApply, registerTournamentCancel,
];

declare const FORK_AGENTS_VERSION: string | undefined;
const VERSION = typeof FORK_AGENTS_VERSION === 'string' ? FORK_AGENTS_VERSION : 'dev';

interface ServerOptions { storeDir: string; idleExitMs: number; evictIdleMs: number }

/** A connection that has not presented the token by then is closed. */
const AUTH_DEADLINE_MS = 30_000;

function parseArgs(argv: string[]): ServerOptions {
  const value = (name: string) => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const storeDir = value('--store');
  if (!storeDir) {
    process.stderr.write('usage: runtime --store DIR [--idle-exit-ms N]\n');
    process.exit(2);
  }
  return {
    storeDir: path.resolve(storeDir),
    idleExitMs: Number(value('--idle-exit-ms') ?? 10 * 60_000),
    // Chats and ended forks nobody used (or holds) for this long leave memory; they are streamed in again on use.
    evictIdleMs: Number(value('--evict-idle-ms') ?? process.env.FORK_AGENTS_EVICT_IDLE_MS ?? 5 * 60_000),
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  // Folders only this user can enter: created 0700, or checked and tightened when they exist.
  ensurePrivateDir(options.storeDir);
  // Own the store before reading or cleaning it: a runtime that loses the start race must not touch it.
  if (!lockStore(options.storeDir)) exitBecauseServed();
  enableCompileCache(options.storeDir);
  // The socket folder stays open for the runtime's life: it listens (and later removes its socket) through that
  // handle, so the folder it checked is the one it serves in (see src/ipc/socketFolder.ts).
  const place = openServingFolder(options.storeDir);
  const socketAddress = place.folder.address(place.name);
  const socketPath = process.platform === 'win32' ? socketAddress : path.join(place.folder.dir, place.name);
  if (place.fallbackReason) log(`${place.fallbackReason} Serving in a fresh private folder instead: ${place.folder.dir}`);
  // A runtime of a version before the lock may still serve the store: it owns it too.
  if (await socketAccepts(socketAddress)) exitBecauseServed();
  const token = randomBytes(32).toString('hex');
  const info: RuntimeInfo = { protocolVersion: PROTOCOL_VERSION, pid: process.pid, storeDir: options.storeDir, version: VERSION };
  const store = new SessionStore(options.storeDir);
  // A test holds or fails the start journal's flushes from outside (startFlushGate.ts); unset in use.
  if (process.env.FORK_AGENTS_START_FLUSH_GATE) store.starts.beforeFlush = startFlushGate(process.env.FORK_AGENTS_START_FLUSH_GATE);
  // Forks a crash left only in the start journal get their files back before anything is loaded (docs/design.md §4.7).
  const recovered = store.recoverStarts();
  if (recovered.written.length > 0) log(`wrote ${recovered.written.length} started fork file(s) back from the start journal: ${recovered.written.join(', ')}`);
  for (const problem of recovered.problems) log(`start journal: ${problem}`);
  const clients = new Set<ClientConnection>();
  const approvals = new ApprovalRouter(clients);
  const forks = new ForkManager(store, clients, approvals);
  const tournaments = new TournamentManager(forks, store);
  const idle = new IdleExit({
    delayMs: options.idleExitMs,
    clients: () => clients.size,
    busy: () => ctx.turns.count > 0 || forks.busy,
    whenIdle: async () => {
      await Promise.all([ctx.turns.whenIdle(), forks.whenIdle()]);
    },
    stop: () => shutdown('idle'),
  });
  const ctx: RuntimeContext = {
    store, turns: new TurnRegistry(), forks, tournaments, approvals, clients, info, token, stop: why => shutdown(why),
    admit: client => {
      client.admitted = true;
      clients.add(client);
      for (const register of HANDLERS) register(ctx, client);
      idle.update();
    },
  };
  mcpHub.onStatus = server => {
    for (const client of clients) client.notify(mcpState, { server });
  };
  for (const problem of await forks.loadAll()) log(`skipped a fork: ${problem}`);
  try {
    tournaments.loadAll();
  } catch (error) {
    log(`tournaments not loaded: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Segments a crash left unfinished or unreferenced (a delete cut short) go now; referenced ones never.
  store.segments.removeUnfinished();
  const sweep = collectGarbage(store);
  if (sweep.removed.length > 0) log(`removed ${sweep.removed.length} unreferenced history segment(s)`);
  void removeScratchLeftovers().then(n => n > 0 && log(`removed ${n} scratch index folder(s) a killed runtime left`));
  const evictTimer = setInterval(() => {
    for (const id of store.evictIdle(options.evictIdleMs)) log(`session ${id} left memory (idle)`);
  }, Math.max(1_000, Math.min(60_000, options.evictIdleMs / 2)));
  evictTimer.unref();
  let nextId = 1;

  const server = net.createServer(socket => {
    // First on the socket, so an oversized frame ends the connection before the reader buffers it.
    limitFrames(socket, () => client.admitted, why => log(`closed a connection that sent ${why}`));
    const rpc = createMessageConnection(new SocketMessageReader(socket), new SocketWriter(socket));
    const client = new ClientConnection(nextId++, rpc);
    client.drop = () => socket.end();
    registerLifecycle(ctx, client);
    // Before the token: every request is refused; after it, only unknown methods end up here.
    rpc.onRequest((method: string) => {
      if (!client.admitted) throw new ResponseError(RuntimeErrorCode.unauthorized, `${method}: initialize with the runtime's token first.`);
      throw new ResponseError(-32601, `Unknown method ${method}.`);
    });
    const deadline = setTimeout(() => {
      if (!client.admitted) client.drop();
    }, AUTH_DEADLINE_MS);
    deadline.unref();
    const onGone = () => {
      clearTimeout(deadline);
      if (client.closed) return;
      client.closed = true;
      const wasClient = clients.delete(client);
      if (!wasClient) return;
      log(`client ${client.id} (${client.clientName}) disconnected`);
      mcpHub.forget(client.id);
      idle.update();
    };
    rpc.onClose(onGone);
    socket.on('close', onGone);
    socket.on('error', () => onGone());
    rpc.listen();
  });

  const shutdown = (why: string) => {
    log(`runtime ${process.pid} stopping (${why})`);
    killAllCommands(); // nothing the bash tool started outlives the runtime
    server.close();
    mcpHub.killAll();
    ctx.store.closeAll();
    removeIfOurs(runtimeInfoPath(options.storeDir));
    if (process.platform !== 'win32') fs.rmSync(socketAddress, { force: true });
    if (place.fallbackReason) fs.rmSync(place.folder.dir, { recursive: true, force: true });
    process.exit(0);
  };
  // Last line of defence: every run catches its own failures (runLoop never rejects, forks end as failed),
  // so anything reaching here is a bug in bookkeeping around them. Logged; the other sessions keep running.
  process.on('unhandledRejection', reason => log(`unhandled rejection (the runtime keeps running): ${describeError(reason)}`));
  process.on('uncaughtException', error => log(`uncaught exception (the runtime keeps running): ${describeError(error)}`));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await listenExclusive(server, socketAddress);
  // Only the runtime that won the socket writes the token; a client that read the previous one retries once.
  // Not flushed to disk (durable: false): they describe this running process, which a power loss ends anyway;
  // the rename still keeps a reader from seeing half a file. Clients wait for them on a cold start.
  writePrivateFile(runtimeTokenPath(options.storeDir), token, { durable: false });
  if (process.platform !== 'win32') fs.chmodSync(socketAddress, 0o600);
  writePrivateFile(runtimeInfoPath(options.storeDir), JSON.stringify({
    ...info, socket: socketPath, ...(place.fallbackReason ? { socketFallback: place.fallbackReason } : {}), startedAt: new Date().toISOString(),
  }), { durable: false });
  log(`runtime ${process.pid} serving ${options.storeDir} on ${socketPath}`);
  // Worktrees of forks that no longer exist (docs/design.md §4.8); in the background, so clients connect at once.
  void forks.janitor.pruneAtStartup();
  idle.update();
}

/** Listens on the store's socket; a stale socket file is replaced, a live runtime makes this one exit. */
async function listenExclusive(server: net.Server, socketPath: string): Promise<void> {
  try {
    await listen(server, socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (await socketAccepts(socketPath)) exitBecauseServed();
    fs.rmSync(socketPath, { force: true });
    await listen(server, socketPath);
  }
}

function exitBecauseServed(): never {
  log('another runtime already serves this store; exiting');
  process.exit(0);
}

function listen(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}


function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function removeIfOurs(infoFile: string): void {
  try {
    const recorded = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { pid?: number };
    if (recorded.pid === process.pid) fs.rmSync(infoFile, { force: true });
  } catch {
    // Already gone or replaced by a newer runtime.
  }
}

if (process.argv.includes('--doctor')) {
  // fork-agents doctor runs the runtime's own loading and recovery on the store, then exits (doctor/doctorMain.ts).
  void doctorMain(process.argv.slice(2)).then(code => process.exit(code), error => {
    process.stderr.write(`fork-agents doctor: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
} else {
  main().catch(error => {
    log(`runtime failed to start: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  });
}
