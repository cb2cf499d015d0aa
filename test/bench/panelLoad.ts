// Section 4: ten forks streaming at once through the real runtime and the fake server, consumed
// the way the extension host consumes them — a JSON-RPC client feeding the Forks panel's PanelModel,
// whose coalesced posts are serialised as postMessage would. Measured in this (consumer) process: the
// event-loop delay (monitorEventLoopDelay) and the renders per fork per second. The fake server runs in
// its own process (dist/fake-anthropic.js, demo model), so its work does not count against the host.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { connectOrStart } from '../../src/client/launch';
import { connectRpc } from '../../src/client/rpcClient';
import type { RuntimeClient } from '../../src/client/rpcClient';
import type { ForkSummary } from '../../src/common/forks';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { forkEvent, forkStart, forkState, forkWait } from '../../src/common/protocol/forks';
import { runtimeConfigure, sessionSend } from '../../src/common/protocol/runtime';
import type { WireMessage } from '../../src/common/protocol/webview';
import { renderUntrustedMarkdown } from '../../src/host/panel/markdown';
import { PanelModel } from '../../src/host/panel/panelModel';
import { runtimeInfoPath } from '../../src/ipc/socketPath';
import { round, thousands } from './stats';
import type { BenchContext, Row, Section } from './types';

const FORKS = 10;
const KEY = 'sk-ant-bench-panel';
/** Pause between SSE events per stream: 16 characters every 8 ms is ~2,000 characters a second per fork, a fast model. */
const STREAM_DELAY_MS = 8;
/** The demo model echoes the directive: this many characters make each fork stream for a few seconds. */
const DIRECTIVE_CHARS = 6_000;
const TARGET_P99_MS = 50;
const TARGET_RENDERS_PER_SECOND = 20;
/** monitorEventLoopDelay's sampling interval; its values include it, so it is kept small. */
const RESOLUTION_MS = 1;

export const panelLoadSection: Section = {
  id: '4',
  title: `Forks panel under load: ${FORKS} forks streaming (event-loop delay of the consuming host, renders per fork)`,
  async run(ctx) {
    const fake = await startFakeProcess(ctx);
    const base = ctx.tempDir('panel-load-');
    const storeDir = path.join(base, 'store');
    const root = path.join(base, 'work');
    fs.mkdirSync(root);
    return withParentTurn(ctx, { storeDir, root, fake, label: 'bench-panel', maxConcurrentForks: FORKS }, measure);
  },
};

export interface ForkCounts { events: number; renders: number[]; posts: number; firstEvent?: number; lastEvent?: number }

/**
 * What the extension host does with fork events, in this process: the runtime's notifications feed the
 * Forks panel's PanelModel, and each of its posts is serialised as postMessage would.
 */
export function panelConsumer(client: RuntimeClient, hooks: { onFork?(fork: ForkSummary): void; onEvent?(forkId: string): void } = {}) {
  const counts = new Map<string, ForkCounts>();
  const countsOf = (forkId: string) => {
    let c = counts.get(forkId);
    if (!c) counts.set(forkId, (c = { events: 0, renders: [], posts: 0 }));
    return c;
  };
  let postedBytes = 0;
  const post = (message: WireMessage) => {
    postedBytes += JSON.stringify(message).length;
    if (message.kind !== 'notification') return;
    const params = message.params as { forkId?: string; fork?: { id: string } };
    const forkId = params.forkId ?? params.fork?.id;
    if (!forkId || (message.method !== 'fork/output' && message.method !== 'forks/state')) return;
    // A flush posts a fork's output and summary back to back: the webview renders them in one frame.
    const c = countsOf(forkId);
    const now = performance.now();
    c.posts++;
    if (c.renders.length === 0 || now - c.renders[c.renders.length - 1] > 1) c.renders.push(now);
  };
  const model = new PanelModel({ post, renderMarkdown: renderUntrustedMarkdown });
  client.connection.onNotification(forkEvent.method, (params: { forkId: string; event: never }) => {
    const c = countsOf(params.forkId);
    c.events++;
    c.lastEvent = performance.now();
    c.firstEvent ??= c.lastEvent;
    model.onForkEvent(params.forkId, params.event);
    hooks.onEvent?.(params.forkId);
  });
  // One handler per method (vscode-jsonrpc keeps the last registered): a section's own interest rides along.
  client.connection.onNotification(forkState.method, (params: { fork: ForkSummary }) => {
    model.setFork(params.fork);
    hooks.onFork?.(params.fork);
  });
  return {
    counts,
    postedBytes: () => postedBytes,
    /** Serialises a reply the host passes on to the webview (a request's answer). */
    postReply: (result: unknown) => post({ kind: 'response', id: 0, result }),
    dispose: () => model.dispose(),
  };
}

async function measure(ctx: BenchContext, client: RuntimeClient, sessionId: string) {
  const consumer = panelConsumer(client);
  const { counts } = consumer;

  const idle = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  idle.enable();
  await new Promise(resolve => setTimeout(resolve, 1_000));
  idle.disable();

  const directive = (i: number) => `Fork ${i + 1}: summarise this text. ${'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(DIRECTIVE_CHARS / 45))}`;
  const busy = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  busy.enable();
  const forks = await Promise.all(Array.from({ length: FORKS }, (_, i) => sendRequest(client.endpoint, forkStart, { sessionId, directive: directive(i), forkTurns: 'all', isolation: 'shared' })));
  const finished = await Promise.all(forks.map(f => sendRequest(client.endpoint, forkWait, { forkId: f.id })));
  busy.disable();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  consumer.dispose();
  const failed = finished.filter(f => f.state !== 'completed');
  if (failed.length > 0) throw new Error(`${failed.length} fork(s) did not complete: ${failed[0].error ?? failed[0].state}`);
  ctx.log(`  ${FORKS} forks streamed in ${seconds.toFixed(1)} s`);
  return toResult(idle, busy, [...counts.values()], seconds, (cpu.user + cpu.system) / 1000, consumer.postedBytes());
}

function toResult(idle: ReturnType<typeof monitorEventLoopDelay>, busy: ReturnType<typeof monitorEventLoopDelay>, forks: ForkCounts[], seconds: number, cpuMs: number, postedBytes: number) {
  const ms = (ns: number) => round(ns / 1e6, 2);
  const p99 = ms(busy.percentile(99));
  const events = forks.reduce((n, f) => n + f.events, 0);
  const peaks = forks.map(f => peakPerSecond(f.renders));
  const peak = Math.max(...peaks);
  const rates = forks.map(f => (f.renders.length > 1 ? (f.renders.length - 1) / ((f.renders[f.renders.length - 1] - f.renders[0]) / 1000) : 0));
  const meanRate = rates.reduce((a, b) => a + b, 0) / rates.length;
  const rows: Row[] = [
    {
      label: `event-loop delay, ${FORKS} forks streaming`,
      result: `p50 ${ms(busy.percentile(50))} ms, p99 ${p99} ms, max ${ms(busy.max)} ms (idle baseline p99 ${ms(idle.percentile(99))} ms)`,
      target: `p99 < ${TARGET_P99_MS} ms`,
      verdict: p99 < TARGET_P99_MS ? 'PASS' : 'MISS',
      values: { p50Ms: ms(busy.percentile(50)), p99Ms: p99, maxMs: ms(busy.max), meanMs: ms(busy.mean), idleP99Ms: ms(idle.percentile(99)), seconds: round(seconds, 2) },
    },
    {
      label: 'panel renders per fork (coalesced flushes)',
      result: `peak ${peak}/s in any 1 s window, mean ${meanRate.toFixed(1)}/s while streaming; ${thousands(events)} fork events → ${thousands(forks.reduce((n, f) => n + f.renders.length, 0))} renders (${thousands(forks.reduce((n, f) => n + f.posts, 0))} messages)`,
      target: `≤ ${TARGET_RENDERS_PER_SECOND}/s per fork`,
      verdict: peak <= TARGET_RENDERS_PER_SECOND ? 'PASS' : 'MISS',
      values: { peakPerSecond: peak, meanPerSecond: round(meanRate, 2), events, renders: forks.reduce((n, f) => n + f.renders.length, 0), messages: forks.reduce((n, f) => n + f.posts, 0) },
    },
    {
      label: 'fork events consumed',
      result: `${thousands(Math.round(events / seconds))}/s in total (${Math.round(events / seconds / forks.length)}/s per fork); host CPU ${Math.round((cpuMs / (seconds * 1000)) * 100)}% of a core; ${Math.round(postedBytes / seconds / 1024)} KB/s posted to the webview`,
      verdict: 'info',
      values: { eventsPerSecond: round(events / seconds, 1), cpuShareOfCore: round(cpuMs / (seconds * 1000), 3), postedBytesPerSecond: Math.round(postedBytes / seconds) },
    },
  ];
  return {
    rows,
    details: { forks: FORKS, streamDelayMs: STREAM_DELAY_MS, directiveChars: DIRECTIVE_CHARS, perForkPeakRenders: peaks },
    notes: [
      `the consumer is this process: vscode-jsonrpc client → PanelModel (50 ms coalescing per fork) → JSON.stringify of each post; the fake server (${STREAM_DELAY_MS} ms between SSE events) and the runtime run in their own processes.`,
      `event-loop delay sampled every ${RESOLUTION_MS} ms (the values include that interval); a render = one flush of a fork (its fork/output and forks/state messages), which the webview applies in one animation frame.`,
    ],
  };
}

/** The most timestamps (ms) inside any half-open 1-second window. */
export function peakPerSecond(times: readonly number[]): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export async function startFakeProcess(ctx: BenchContext, streamDelayMs = STREAM_DELAY_MS): Promise<{ url: string; child: ChildProcess }> {
  const script = path.join(ctx.distDir, 'fake-anthropic.js');
  const child = spawn(process.execPath, [script, '--port', '0', '--demo', '--api-key', KEY, '--stream-delay-ms', String(streamDelayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n')[0];
      if (buffered.includes('\n')) {
        try {
          resolve((JSON.parse(line) as { url: string }).url);
        } catch (error) {
          reject(error);
        }
      }
    });
    child.once('exit', code => reject(new Error(`the fake server exited (${code}) before announcing its url`)));
  });
  return { url, child };
}

/**
 * Starts a runtime on `storeDir` against the fake process, has one chat turn in `root`, and hands its
 * session to `measure`; the client, the runtime and the fake are stopped after, whatever happened.
 */
export async function withParentTurn<T>(
  ctx: BenchContext,
  run: { storeDir: string; root: string; fake: { url: string; child: ChildProcess }; label: string; maxConcurrentForks: number },
  measure: (ctx: BenchContext, client: RuntimeClient, sessionId: string) => Promise<T>,
): Promise<T> {
  let client: RuntimeClient | undefined;
  try {
    client = await connectRpc(await connectOrStart({ storeDir: run.storeDir, runtimeScript: path.join(ctx.distDir, 'runtime.js'), idleExitMs: 30_000 }), run.label);
    await sendRequest(client.endpoint, runtimeConfigure, { apiKey: KEY, baseUrl: run.fake.url, approvalMode: 'auto', maxConcurrentForks: run.maxConcurrentForks });
    const parent = await sendRequest(client.endpoint, sessionSend, { root: run.root, prompt: 'Hello, demo model.', turnId: randomUUID() });
    if (parent.error) throw new Error(`parent turn failed: ${parent.error.message}`);
    return await measure(ctx, client, parent.sessionId);
  } finally {
    await client?.close().catch(() => undefined);
    stopRuntime(run.storeDir);
    run.fake.child.kill('SIGTERM');
  }
}

export function stopRuntime(storeDir: string): void {
  try {
    // Only the runtime this section started: its pid is in its own store's runtime.json.
    const { pid } = JSON.parse(fs.readFileSync(runtimeInfoPath(storeDir), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
  } catch {
    // Never started, or already gone.
  }
}
