// Runs the real runtime process (dist/runtime.js) against the fake Anthropic server over JSON-RPC,
// with real temp folders. Each harness owns its store, so each gets its own runtime; a file whose tests need
// no fresh store or process shares one harness, `renew()`ed before each test.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import type { AgentEvent } from '../../src/common/agentEvents';
import { onNotification, onRequest, sendRequest } from '../../src/common/protocol/endpoint';
import { permissionRequest, runtimeConfigure, sessionEvent, sessionSend, sessionTranscript } from '../../src/common/protocol/runtime';
import type { ConfigureParams, PermissionParams, PermissionResult, SendParams, SendResult, TranscriptResult } from '../../src/common/protocol/runtime';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic, FakeAnthropicOptions } from '../fakes/anthropicServer';

export const RUNTIME_SCRIPT = path.resolve(__dirname, '../../../dist/runtime.js');
export const TEST_KEY = 'sk-ant-test-key';
/**
 * What every test runtime (and every runtime a test's CLI starts) gets: a 5 ms retry backoff base instead of
 * 500 ms, so a test of an unreachable endpoint or a failing server does not wait out seconds of backoff (a
 * server's retry-after still decides when it gives one); and unsandboxed commands in `bash -c`, not a login
 * shell, which skips the user's profile (on a machine whose ~/.bashrc starts pyenv, 170 ms of CPU a command).
 * Both production defaults are unit-tested (model.retryDelay, sandbox.commandPlan). And every request that
 * reuses a kept prefix is built again whole and compared byte for byte (agent/prefixCheck.ts): a difference
 * fails the request, in whatever test it happens.
 */
export const TEST_RUNTIME_ENV: NodeJS.ProcessEnv = { FORK_AGENTS_RETRY_BASE_MS: '5', FORK_AGENTS_BASH_LOGIN: '0', FORK_AGENTS_CHECK_PREFIX: '1' };

export interface Harness {
  storeDir: string;
  root: string;
  fake: FakeAnthropic;
  client: RuntimeClient;
  events: { sessionId: string; turnId: string; event: AgentEvent }[];
  approvals: PermissionParams[];
  answerApproval: (params: PermissionParams) => PermissionResult | Promise<PermissionResult>;
  configure(params: ConfigureParams): Promise<void>;
  send(prompt: string, extra?: Partial<SendParams>): Promise<SendResult>;
  transcript(sessionId: string): Promise<TranscriptResult>;
  waitForEvent(predicate: (event: AgentEvent) => boolean): Promise<AgentEvent>;
  runtimePid(): number;
  /** Disconnects and connects again (a window reload), starting a runtime if none runs. */
  reconnect(): Promise<void>;
  /** A second client of the same runtime (another window), configured like the first. */
  connectAnother(): Promise<RuntimeClient>;
  /**
   * Readies the harness for the next test of a file that shares one runtime (a runtime start is most of a
   * short test's CPU): a new work folder, a new fake server, a new client connection (so the starting
   * configuration again: a client's settings are kept per connection), no events or approvals. The store
   * and the runtime stay, so a test that must see an empty store or a fresh process starts its own.
   */
  renew(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * `storeDir`: a store folder to use (a small tmpfs, say); default: a new temp folder.
 * `prepare`: fills the store (a fixture) and the work folder before the runtime starts.
 * `env`: extra environment of the runtime this harness starts (an injected cap or wait, say), so a test
 * need not set and restore process.env around the start.
 */
export async function startHarness(options: {
  fake?: FakeAnthropicOptions;
  config?: ConfigureParams;
  storeDir?: string;
  prepare?: (storeDir: string, root: string) => void;
  env?: NodeJS.ProcessEnv;
  /** More environment for the runtime process (a temp HOME, say); merged over `env`. */
  runtimeEnv?: NodeJS.ProcessEnv;
  /** What runs dist/runtime.js instead of this Node (a wrapper that traces it, say). */
  nodePath?: string;
} = {}): Promise<Harness> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-rt-'));
  const storeDir = options.storeDir ?? path.join(base, 'store');
  const root = path.join(base, 'work');
  fs.mkdirSync(root);
  options.prepare?.(storeDir, root);
  const fake = await startFakeAnthropic({ apiKey: TEST_KEY, ...options.fake });
  const listeners = new Set<(event: AgentEvent) => void>();
  // The sandbox is off unless a test asks for it: other suites start servers in forks and reach them from here.
  const startingConfig = (url: string): ConfigureParams => ({ apiKey: TEST_KEY, baseUrl: url, approvalMode: 'auto', sandbox: { mode: 'off' }, ...options.config });
  let config = startingConfig(fake.url);
  let renewals = 0;

  const connect = async (): Promise<RuntimeClient> => {
    const socket = await connectOrStart({ storeDir, runtimeScript: RUNTIME_SCRIPT, idleExitMs: 60_000, env: { ...TEST_RUNTIME_ENV, ...options.env, ...options.runtimeEnv }, nodePath: options.nodePath });
    const client = await connectRpc(socket, 'runtime-test');
    onNotification(client.endpoint, sessionEvent, params => {
      harness.events.push({ sessionId: params.sessionId, turnId: params.turnId, event: params.event });
      for (const listener of listeners) listener(params.event);
    });
    onRequest(client.endpoint, permissionRequest, params => {
      harness.approvals.push(params);
      return harness.answerApproval(params);
    });
    await sendRequest(client.endpoint, runtimeConfigure, config);
    return client;
  };

  const harness: Harness = {
    storeDir,
    root,
    fake,
    client: undefined as unknown as RuntimeClient,
    events: [],
    approvals: [],
    answerApproval: () => ({ approved: true }),
    async configure(params) {
      config = { ...config, ...params };
      await sendRequest(harness.client.endpoint, runtimeConfigure, params);
    },
    send(prompt, extra = {}) {
      return sendRequest(harness.client.endpoint, sessionSend, { root: harness.root, prompt, turnId: randomUUID(), ...extra });
    },
    transcript(sessionId) {
      return sendRequest(harness.client.endpoint, sessionTranscript, { sessionId });
    },
    waitForEvent(predicate) {
      const seen = harness.events.find(e => predicate(e.event));
      if (seen) return Promise.resolve(seen.event);
      return new Promise(resolve => {
        const listener = (event: AgentEvent) => {
          if (!predicate(event)) return;
          listeners.delete(listener);
          resolve(event);
        };
        listeners.add(listener);
      });
    },
    runtimePid() {
      return (JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number }).pid;
    },
    async reconnect() {
      await harness.client.close().catch(() => undefined);
      harness.client = await connect();
    },
    connectAnother() {
      return connect();
    },
    async renew() {
      await harness.client.close().catch(() => undefined);
      await harness.fake.close();
      harness.fake = await startFakeAnthropic({ apiKey: TEST_KEY, ...options.fake });
      config = startingConfig(harness.fake.url);
      // A folder of its own around the work folder too: a worktree fork's folders go beside the repository.
      harness.root = path.join(base, `test-${++renewals}`, 'work');
      fs.mkdirSync(harness.root, { recursive: true });
      harness.events = [];
      harness.approvals = [];
      harness.answerApproval = () => ({ approved: true });
      listeners.clear();
      harness.client = await connect();
    },
    async dispose() {
      await harness.client.close().catch(() => undefined);
      try {
        process.kill(harness.runtimePid(), 'SIGTERM');
      } catch {
        // Already gone.
      }
      await harness.fake.close();
    },
  };
  harness.client = await connect();
  return harness;
}

/**
 * For a describe block whose tests share one runtime (a runtime start is most of a short test's CPU): starts
 * the harness before the first test, renews it before each (`renew`: hooks registered after this call run
 * after the renewal) and disposes of it after the last. What it returns stands for that harness inside
 * tests and hooks.
 */
export function useSharedHarness(options?: Parameters<typeof startHarness>[0]): Harness {
  let current: Harness | undefined;
  const now = (): Harness => {
    if (!current) throw new Error('the shared harness exists only inside a test or a hook');
    return current;
  };
  before(async () => {
    current = await startHarness(options);
  });
  beforeEach(() => now().renew());
  after(() => current?.dispose());
  return new Proxy({} as Harness, {
    get: (_, key) => Reflect.get(now(), key),
    set: (_, key, value) => Reflect.set(now(), key, value),
  });
}

/** Kills the runtime with SIGKILL and waits until the process is gone. */
export async function killRuntime(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await exited(pid);
}

/**
 * Resolves once the process is gone. Node has no exit event for a process it did not start, so this looks
 * every few milliseconds; a loop on setImmediate would keep a core busy, the one the exiting process (or
 * whoever reaps it) needs on a 2-core machine.
 */
export async function exited(pid: number): Promise<void> {
  while (isAlive(pid)) await new Promise(resolve => setTimeout(resolve, 5));
}

/** Whether a process with this pid still exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
