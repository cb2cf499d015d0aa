// Starts the real runtime process (dist/runtime.js) against the in-process fake Anthropic server and
// drives it over JSON-RPC, the way test/runtime/harness.ts does (that harness resolves dist/ relative to
// the compiled test tree, so the bundled bench keeps its own small copy of the steps).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import type { ForkSummary } from '../../src/common/forks';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { request } from '../../src/common/protocol/descriptor';
import { forkStart, forkWait } from '../../src/common/protocol/forks';
import type { ForkStartParams } from '../../src/common/protocol/forks';
import { runtimeConfigure, sessionSend } from '../../src/common/protocol/runtime';
import type { SendResult } from '../../src/common/protocol/runtime';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, FakeAnthropicOptions, Responder } from '../fakes/anthropicServer';
import { startFakeApart } from './fakeApart';
import type { FakeApart, FakeApartOptions } from './fakeApart';
import type { BenchContext } from './types';

const KEY = 'sk-ant-bench-key';

/** The fake as the runtime run needs it: in this process (FakeAnthropic) or on its own thread (FakeApart). */
interface FakeHandle { url: string; close(): Promise<void> }

export interface RuntimeRun<F extends FakeHandle = FakeAnthropic> {
  root: string;
  storeDir: string;
  /** The runtime process's pid (from its store's runtime.json). */
  pid(): number;
  fake: F;
  client: RuntimeClient;
  send(prompt: string, sessionId?: string): Promise<SendResult>;
  startFork(params: ForkStartParams): Promise<ForkSummary>;
  waitFork(forkId: string): Promise<ForkSummary>;
  dispose(): Promise<void>;
}

export interface RunOptions {
  /** Runs before the runtime starts, e.g. to write parent sessions into its store. */
  prepare?(storeDir: string, root: string): Promise<void>;
  /** Extra environment for the runtime process (e.g. NODE_OPTIONS=--cpu-prof). */
  env?: NodeJS.ProcessEnv;
  /** The Node executable for the runtime (absent: this process's). */
  nodePath?: string;
  /** The chats' model (absent: the runtime's default). */
  model?: string;
}

export async function startRuntimeRun(ctx: BenchContext, responder: Responder, fakeOptions: Omit<FakeAnthropicOptions, 'apiKey' | 'responder'> = {}, options: RunOptions = {}): Promise<RuntimeRun> {
  return runtimeAgainst(ctx, () => startFakeAnthropic({ ...fakeOptions, apiKey: KEY, responder }), options);
}

/** As startRuntimeRun, with the fake on its own thread: for sections that time fork/start and pings from this process. */
export async function startRuntimeRunApart(ctx: BenchContext, fakeOptions: Omit<FakeApartOptions, 'apiKey'>, options: RunOptions = {}): Promise<RuntimeRun<FakeApart>> {
  return runtimeAgainst(ctx, () => startFakeApart({ ...fakeOptions, apiKey: KEY }), options);
}

async function runtimeAgainst<F extends FakeHandle>(ctx: BenchContext, startFake: () => Promise<F>, options: RunOptions): Promise<RuntimeRun<F>> {
  const runtimeScript = path.join(ctx.distDir, 'runtime.js');
  if (!fs.existsSync(runtimeScript)) throw new Error(`${runtimeScript} is missing: run \`npm run bench\` (it builds dist/ first).`);
  const base = ctx.tempDir('cache-share-');
  const storeDir = path.join(base, 'store');
  const root = path.join(base, 'work');
  fs.mkdirSync(root);
  await options.prepare?.(storeDir, root);
  const fake = await startFake();
  let client: RuntimeClient | undefined;
  // Only the runtime this run started: its pid is in its own store's runtime.json.
  const pid = () => (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
  const dispose = async () => {
    await client?.close().catch(() => undefined);
    try {
      process.kill(pid(), 'SIGTERM');
    } catch {
      // Never started, or already gone.
    }
    await fake.close();
  };
  try {
    const socket = await connectOrStart({ storeDir, runtimeScript, idleExitMs: 30_000, env: options.env, nodePath: options.nodePath, connectTimeoutMs: 120_000 });
    client = await connectRpc(socket, 'bench');
    await sendRequest(client.endpoint, runtimeConfigure, { apiKey: KEY, baseUrl: fake.url, approvalMode: 'auto', ...(options.model ? { model: options.model } : {}) });
  } catch (error) {
    await dispose();
    throw error;
  }
  const endpoint = client.endpoint;
  return {
    root,
    storeDir,
    pid,
    fake,
    client,
    send: (prompt, sessionId) => sendRequest(endpoint, sessionSend, { root, prompt, turnId: randomUUID(), sessionId }),
    startFork: params => sendRequest(endpoint, forkStart, params),
    waitFork: forkId => sendRequest(endpoint, forkWait, { forkId }),
    dispose,
  };
}

/** An unknown method: the runtime answers MethodNotFound at once, so its round trip is the event loop's delay (plus the socket's). */
const ping = request<Record<string, never>, void>('bench/ping');

/**
 * Pings the runtime every `everyMs` until `stop()`, which resolves to the round trips measured.
 * `clientP99Ms` is this process's own event-loop delay meanwhile: a round trip is the runtime's only when that stays small.
 */
export function pingRuntime(run: Pick<RuntimeRun<FakeHandle>, 'client'>, everyMs: number): { stop(): Promise<number[]>; clientP99Ms(): number } {
  const delays: number[] = [];
  const own = monitorEventLoopDelay({ resolution: 5 });
  own.enable();
  let pinging = true;
  const pinger = (async () => {
    while (pinging) {
      const sent = performance.now();
      await sendRequest(run.client.endpoint, ping, {}).catch(() => undefined);
      delays.push(performance.now() - sent);
      await new Promise(resolve => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      pinging = false;
      await pinger;
      own.disable();
      return delays;
    },
    clientP99Ms: () => own.percentile(99) / 1e6,
  };
}
