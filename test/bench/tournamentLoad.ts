// Section "tournament-load": a tournament of 8 attempts streaming at once (real runtime, real git worktrees,
// the demo model in its own process streaming every attempt), consumed in this process the way the
// extension host consumes it: the Forks panel's PanelModel fed by the runtime's fork events, every post
// serialised as postMessage would, and — as the panel does with its Compare view open — a
// tournament/compare request whenever an attempt ends, its answer serialised for the webview too.
// Target: the host's event-loop delay p99 < 50 ms while the attempts stream.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { RuntimeClient } from '../../src/client/rpcClient';
import { isTerminal } from '../../src/common/forks';
import { sendRequest } from '../../src/common/protocol/endpoint';
import { tournamentCompare, tournamentStart, tournamentWait } from '../../src/common/protocol/forks';
import { panelConsumer, peakPerSecond, startFakeProcess, withParentTurn } from './panelLoad';
import type { ForkCounts } from './panelLoad';
import { round, thousands } from './stats';
import type { BenchContext, Row, Section } from './types';

const ATTEMPTS = 8;
const STREAM_DELAY_MS = 8;
/** The demo model echoes the directive: this long, each attempt streams for a few seconds. */
const DIRECTIVE_CHARS = 6_000;
const TARGET_P99_MS = 50;
const RESOLUTION_MS = 1;

export const tournamentLoadSection: Section = {
  id: 'tournament-load',
  title: `Extension host under a tournament: ${ATTEMPTS} attempts streaming in their worktrees (event-loop delay of the consuming host)`,
  async run(ctx) {
    const fake = await startFakeProcess(ctx, STREAM_DELAY_MS);
    const base = ctx.tempDir('tournament-load-');
    const storeDir = path.join(base, 'store');
    const root = path.join(base, 'work');
    fs.mkdirSync(root);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(root, 'README.md'), 'bench\n');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-qm', 'initial');
    return withParentTurn(ctx, { storeDir, root, fake, label: 'bench-tournament', maxConcurrentForks: ATTEMPTS }, measure);
  },
};

async function measure(ctx: BenchContext, client: RuntimeClient, sessionId: string) {
  let groupId: string | undefined;
  const compareTimes: number[] = [];
  const ended = new Set<string>();
  const compares: Promise<void>[] = [];
  // Two histograms: the whole run (worktrees made, attempts staggered, the judge), and only while the
  // attempts stream — from the first attempt's first event until the last attempt has ended — so quiet
  // phases cannot thin out the streaming p99.
  const whole = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const streaming = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let measuring = false;
  let streamStart: number | undefined;
  let streamEnd: number | undefined;
  const consumer = panelConsumer(client, {
    // The parent's turn is over before the tournament starts: every fork event from here on is an attempt's.
    onEvent: () => {
      if (streamStart !== undefined || !measuring) return;
      streamStart = performance.now();
      streaming.enable();
    },
    onFork: fork => {
      if (!groupId || fork.tournament?.groupId !== groupId || !isTerminal(fork.state) || ended.has(fork.id)) return;
      ended.add(fork.id);
      if (ended.size === ATTEMPTS && streamEnd === undefined) {
        streaming.disable();
        streamEnd = performance.now();
      }
      const asked = performance.now();
      compares.push(sendRequest(client.endpoint, tournamentCompare, { groupId }).then(result => {
        consumer.postReply(result);
        compareTimes.push(performance.now() - asked);
      }));
    },
  });

  const idle = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  idle.enable();
  await new Promise(resolve => setTimeout(resolve, 1_000));
  idle.disable();

  const directive = `Summarise this text. ${'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(DIRECTIVE_CHARS / 45))}`;
  const loadBefore = os.loadavg()[0];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  whole.enable();
  measuring = true;
  const start = await sendRequest(client.endpoint, tournamentStart, { sessionId, directive, attempts: ATTEMPTS, verify: '', forkTurns: 'all' });
  groupId = start.group.id;
  const result = await sendRequest(client.endpoint, tournamentWait, { groupId });
  await Promise.all(compares);
  whole.disable();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const loadAfter = os.loadavg()[0];
  consumer.dispose();
  const failed = result.attempts.filter(a => a.state !== 'completed');
  if (failed.length > 0) throw new Error(`${failed.length} attempt(s) did not complete: ${failed[0].error ?? failed[0].state}`);
  if (streamStart === undefined || streamEnd === undefined) throw new Error('no attempt streamed, or not every attempt ended');
  const forks = result.group.forkIds.map(id => consumer.counts.get(id)).filter((c): c is ForkCounts => c !== undefined);
  ctx.log(`  ${ATTEMPTS} attempts streamed in ${((streamEnd - streamStart) / 1000).toFixed(1)} s (${seconds.toFixed(1)} s from start to verdict)`);
  return toResult({
    idle, whole, streaming, forks, seconds, streamSeconds: (streamEnd - streamStart) / 1000, cpuMs: (cpu.user + cpu.system) / 1000,
    postedBytes: consumer.postedBytes(), compareTimes, load: [loadBefore, loadAfter],
  });
}

type Histogram = ReturnType<typeof monitorEventLoopDelay>;

interface Measured {
  idle: Histogram;
  whole: Histogram;
  streaming: Histogram;
  forks: ForkCounts[];
  seconds: number;
  streamSeconds: number;
  cpuMs: number;
  postedBytes: number;
  compareTimes: number[];
  load: [number, number];
}

function toResult(m: Measured) {
  const ms = (ns: number) => round(ns / 1e6, 2);
  const p99 = ms(m.streaming.percentile(99));
  const events = m.forks.reduce((n, f) => n + f.events, 0);
  const rows: Row[] = [
    {
      label: `event-loop delay while ${ATTEMPTS} tournament attempts stream`,
      result: `p50 ${ms(m.streaming.percentile(50))} ms, p99 ${p99} ms, max ${ms(m.streaming.max)} ms over ${m.streamSeconds.toFixed(1)} s (idle baseline p99 ${ms(m.idle.percentile(99))} ms)`,
      target: `p99 < ${TARGET_P99_MS} ms`,
      verdict: p99 < TARGET_P99_MS ? 'PASS' : 'MISS',
      values: { p50Ms: ms(m.streaming.percentile(50)), p99Ms: p99, maxMs: ms(m.streaming.max), idleP99Ms: ms(m.idle.percentile(99)), streamSeconds: round(m.streamSeconds, 2) },
    },
    {
      label: 'the same from tournament/start to the verdict',
      result: `p99 ${ms(m.whole.percentile(99))} ms, max ${ms(m.whole.max)} ms over ${m.seconds.toFixed(1)} s (worktrees, stagger and the judge included)`,
      verdict: 'info',
      values: { p99Ms: ms(m.whole.percentile(99)), maxMs: ms(m.whole.max), seconds: round(m.seconds, 2) },
    },
    {
      label: 'attempts streaming at once',
      result: `peak ${peakOverlap(m.forks)} of ${ATTEMPTS} (first to last fork event per attempt); panel renders per attempt peak ${Math.max(...m.forks.map(f => peakPerSecond(f.renders)))}/s`,
      verdict: 'info',
      values: { peakStreaming: peakOverlap(m.forks) },
    },
    {
      label: 'fork events consumed, compare answers passed on',
      result: `${thousands(Math.round(events / m.streamSeconds))}/s while streaming (${thousands(events)} in all); ${m.compareTimes.length} tournament/compare answers (${m.compareTimes.length ? `max ${Math.round(Math.max(...m.compareTimes))} ms round trip` : 'none'}); host CPU ${Math.round((m.cpuMs / (m.seconds * 1000)) * 100)}% of a core; ${Math.round(m.postedBytes / m.seconds / 1024)} KB/s posted to the webview`,
      verdict: 'info',
      values: { eventsPerSecond: round(events / m.streamSeconds, 1), events, compares: m.compareTimes.length, cpuShareOfCore: round(m.cpuMs / (m.seconds * 1000), 3), postedBytesPerSecond: Math.round(m.postedBytes / m.seconds) },
    },
    {
      label: 'machine load (1-minute average) before → after',
      result: `${m.load[0].toFixed(2)} → ${m.load[1].toFixed(2)} on ${os.cpus().length} cores`,
      verdict: 'info',
      values: { loadBefore: round(m.load[0], 2), loadAfter: round(m.load[1], 2), cores: os.cpus().length },
    },
  ];
  return {
    rows,
    details: { attempts: ATTEMPTS, streamDelayMs: STREAM_DELAY_MS, directiveChars: DIRECTIVE_CHARS },
    notes: [
      `the consumer is this process: vscode-jsonrpc client → PanelModel (coalesced per fork) → JSON.stringify of each post, plus a tournament/compare per ended attempt (the Compare view's refresh); the runtime (worktrees, git) and the fake server (${STREAM_DELAY_MS} ms between SSE events) run in their own processes.`,
      `event-loop delay sampled every ${RESOLUTION_MS} ms; the target row covers the first attempt's first event to the last attempt's end; on a shared machine the load row says how busy it was.`,
    ],
  };
}

/** The most attempts whose streams (first to last event) overlap at one moment. */
function peakOverlap(forks: readonly ForkCounts[]): number {
  const edges = forks.flatMap(f => (f.firstEvent === undefined ? [] : [[f.firstEvent, 1], [f.lastEvent!, -1]] as [number, number][]));
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let best = 0;
  for (const [, delta] of edges) best = Math.max(best, (now += delta));
  return best;
}
