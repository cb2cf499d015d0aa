// The fake Anthropic server on its own thread, for sections that time the runtime from this process. The
// fake simulates the prompt cache: per request it parses the body and hashes every block of it, so fifty
// 650 KB first requests at once keep it busy for seconds (a CPU profile of the bench process showed 8 s in
// its blockHash, parseJson and estimateTokens). In this process's event loop that time landed in every
// fork/start round trip and ping measured meanwhile, and was read as the runtime stalling. On a worker
// thread the fake still competes for the cores, as a model server would not, but never delays the client.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { ScriptedTurn } from '../fakes/anthropicServer';

export interface FakeApartOptions {
  apiKey: string;
  /** Every request gets this answer. */
  answer: ScriptedTurn;
  firstEventDelayMs?: number;
  streamDelayMs?: number;
  /** A regular expression (source) over the raw body; its first group names a request for onArrival. */
  namePattern?: string;
}

export interface FakeApart {
  url: string;
  /** When a named request's body arrived, on this process's performance.now() clock. */
  onArrival(listener: (name: string, at: number) => void): void;
  close(): Promise<void>;
}

type FromWorker = { kind: 'listening'; url: string } | { kind: 'arrival'; name: string; at: number };

const MARK = 'fork-agents-bench-fake';

/** Starts the fake on a worker thread running this same bundle (see runFakeWorkerIfAsked). */
export async function startFakeApart(options: FakeApartOptions): Promise<FakeApart> {
  const worker = new Worker(__filename, { workerData: { [MARK]: options } });
  const listeners: ((name: string, at: number) => void)[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', code => reject(new Error(`the fake's thread exited (${code}) before listening`)));
    worker.on('message', (message: FromWorker) => {
      if (message.kind === 'listening') resolve(message.url);
      // Both threads' clocks start at their own timeOrigin: translate to this one's.
      else for (const listener of listeners) listener(message.name, message.at - performance.timeOrigin);
    });
  });
  return {
    url,
    onArrival: listener => void listeners.push(listener),
    close: async () => void (await worker.terminate()),
  };
}

/** In the bench's entry: true (and the fake started) when this thread is the fake's. */
export function runFakeWorkerIfAsked(): boolean {
  const options = !isMainThread && (workerData as Record<string, FakeApartOptions> | undefined)?.[MARK];
  if (!options) return false;
  void serve(options);
  return true;
}

async function serve(options: FakeApartOptions): Promise<void> {
  const pattern = options.namePattern ? new RegExp(options.namePattern) : undefined;
  const fake = await startFakeAnthropic({ apiKey: options.apiKey, responder: () => options.answer, firstEventDelayMs: options.firstEventDelayMs, streamDelayMs: options.streamDelayMs });
  if (pattern) {
    fake.onRequest(r => {
      const name = pattern.exec(r.rawBody)?.[1];
      if (name) parentPort!.postMessage({ kind: 'arrival', name, at: performance.timeOrigin + performance.now() } satisfies FromWorker);
    });
  }
  // The server keeps every request; the bench never reads them here, so forget them as they end.
  fake.onResponse(() => void fake.requests.splice(0));
  parentPort!.postMessage({ kind: 'listening', url: fake.url } satisfies FromWorker);
}
