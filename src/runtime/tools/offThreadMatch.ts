// Runs a regular expression (a compiled glob, or the grep fallback's pattern) on a worker thread with a
// time budget per batch. JavaScript regexes backtrack: `^(a+)+$` on a line of a's, or a
// glob like `*a*a*a*a*a*a*a*a*a*a*b` on a long name, can run for minutes, and on the runtime's main thread
// that would freeze every session. On a worker the main thread stays free, and a batch that overruns its
// budget ends with Worker.terminate(), which interrupts even a regex in the middle of backtracking.
import { Worker } from 'node:worker_threads';
import { ToolError } from './types';

/** How long one batch (one file's lines, or up to a thousand paths) may take. */
export const MATCH_BUDGET_MS = 2_000;

// Plain JS, evaluated in the worker: no bundling or file lookup needed.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', message => {
  if (message.kind === 'paths') {
    parentPort.postMessage(message.items.map(item => re.test(item)));
    return;
  }
  const found = [];
  const lines = message.text.split('\\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length && found.length < message.max; i++) {
    const line = lines[i].endsWith('\\r') ? lines[i].slice(0, -1) : lines[i];
    if (re.test(line)) found.push(i);
  }
  parentPort.postMessage(found);
});
`;

export class BudgetExceededError extends ToolError {}

export class OffThreadRegex {
  private worker: Worker | undefined;

  /** `describe`: how the pattern is named in the error, e.g. `the glob "*a*b"`. */
  constructor(private readonly re: RegExp, private readonly describe: string, private readonly budgetMs = MATCH_BUDGET_MS) {}

  /** Which of `items` the regex matches. */
  testAll(items: string[]): Promise<boolean[]> {
    if (items.length === 0) return Promise.resolve([]);
    return this.ask<boolean[]>({ kind: 'paths', items });
  }

  /** Indexes (0-based) of the lines of `text` that match, at most `max`. Lines are split like the grep fallback's output. */
  matchingLines(text: string, max: number): Promise<number[]> {
    return this.ask<number[]>({ kind: 'lines', text, max });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private ask<T>(message: unknown): Promise<T> {
    const worker = (this.worker ??= this.start());
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        void this.close();
        reject(new BudgetExceededError(
          `Matching ${this.describe} took longer than ${this.budgetMs / 1000} s and was stopped: the pattern is too expensive ` +
          '(nested or repeated wildcards and quantifiers backtrack). Use a simpler pattern.',
        ));
      }, this.budgetMs);
      const onMessage = (value: T) => {
        cleanup();
        resolve(value);
      };
      const onError = (error: Error) => {
        cleanup();
        this.worker = undefined;
        reject(new ToolError(`Matching ${this.describe} failed: ${error.message}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(message);
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source: this.re.source, flags: this.re.flags } });
    worker.unref(); // an idle matcher must not keep the runtime alive
    return worker;
  }
}
