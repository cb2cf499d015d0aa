// Small statistics and formatting helpers.
import { performance } from 'node:perf_hooks';

export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest-rank: p95 of 30 samples is the 29th smallest.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface Timing { median: number; p95: number; min: number; max: number; runs: number }

export function summarize(samples: readonly number[]): Timing {
  return { median: median(samples), p95: quantile(samples, 0.95), min: Math.min(...samples), max: Math.max(...samples), runs: samples.length };
}

/** Milliseconds taken by `fn`. */
export function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 0.1) return `${Math.round(value * 1000)} µs`;
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(1)} ms`;
}

export function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
