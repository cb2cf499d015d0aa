// Shapes shared by the benchmark's sections, table and JSON report.

export type Verdict = 'PASS' | 'MISS' | 'info' | 'error';

/** One line of the printed table (and one object in bench.json). */
export interface Row {
  /** What was measured, e.g. "fork start, 1,000 entries, turns=all". */
  label: string;
  /** Human-readable result, e.g. "median 3.1 ms, p95 4.0 ms". */
  result: string;
  /** The target it is judged against, when there is one. */
  target?: string;
  verdict: Verdict;
  /** The raw numbers behind `result`, for bench.json. */
  values: Record<string, number | string | boolean | null>;
}

export interface SectionResult {
  rows: Row[];
  /** Extra facts for bench.json only (sizes, settings, breakdowns). */
  details?: Record<string, unknown>;
  /** One-line notes printed under the section's rows. */
  notes?: string[];
}

/** Everything a section may need from the run. */
export interface BenchContext {
  /** Forced full GC (the bench always runs with --expose-gc). */
  gc(): void;
  /** A fresh temp folder, removed when the run ends. */
  tempDir(prefix: string): string;
  /** A fresh folder on tmpfs (/dev/shm), removed when the run ends; undefined where there is none. */
  memTempDir(prefix: string): string | undefined;
  /** dist/ of this build (where runtime.js lives). */
  distDir: string;
  log(message: string): void;
}

/**
 * A benchmark section. Sections run in order, each on its own; a section that throws is reported as an
 * error row and the run goes on. Add new sections (e.g. an event-loop delay check) to `sections.ts`.
 */
export interface Section {
  id: string;
  title: string;
  run(ctx: BenchContext): Promise<SectionResult>;
}
