// Prints the results as a plain-text table and writes the same numbers to test-results/bench.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Conditions } from './conditions';
import { describeConditions } from './conditions';
import type { Row, Section, SectionResult } from './types';

export interface SectionOutcome { section: Pick<Section, 'id' | 'title'>; result: SectionResult; seconds: number }

const HEADERS = ['Measurement', 'Result', 'Target', 'Verdict'];
const MAX_WIDTH = [44, 72, 31, 7];

export function renderReport(conditions: Conditions, outcomes: readonly SectionOutcome[], totalSeconds: number): string {
  const out: string[] = ['Fork Agents benchmark (npm run bench)', ...describeConditions(conditions), ''];
  const cells = (row: Row) => [row.label, row.result, row.target ?? '—', row.verdict];
  const all = outcomes.flatMap(o => o.result.rows.map(cells));
  const widths = HEADERS.map((h, i) => Math.min(MAX_WIDTH[i], Math.max(h.length, ...all.map(c => c[i].length))));
  const line = (values: string[]) => values.map((v, i) => pad(v, widths[i])).join(' | ').trimEnd();
  const rule = widths.map(w => '-'.repeat(w)).join('-+-');
  out.push(line(HEADERS), rule);
  for (const { section, result, seconds } of outcomes) {
    out.push(`${section.id}. ${section.title}  (${seconds.toFixed(1)} s)`);
    for (const row of result.rows) for (const wrapped of wrapRow(cells(row), widths)) out.push(line(wrapped));
    for (const note of result.notes ?? []) out.push(`   note: ${note}`);
    out.push(rule);
  }
  const verdicts = outcomes.flatMap(o => o.result.rows.map(r => r.verdict));
  const count = (v: string) => verdicts.filter(x => x === v).length;
  out.push(`Total ${totalSeconds.toFixed(1)} s. ${count('PASS')} PASS, ${count('MISS')} MISS, ${count('error')} error (a benchmark reports; it never fails the run).`);
  return out.join('\n');
}

export function writeJson(file: string, conditions: Conditions, outcomes: readonly SectionOutcome[], totalSeconds: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const json = {
    conditions,
    totalSeconds: Math.round(totalSeconds * 10) / 10,
    sections: outcomes.map(({ section, result, seconds }) => ({
      id: section.id,
      title: section.title,
      seconds: Math.round(seconds * 10) / 10,
      rows: result.rows,
      notes: result.notes ?? [],
      details: result.details ?? {},
    })),
  };
  fs.writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
}

function pad(value: string, width: number): string {
  return value.length >= width ? value : value + ' '.repeat(width - value.length);
}

/** Splits over-wide cells at spaces into several table lines. */
function wrapRow(values: string[], widths: number[]): string[][] {
  const columns = values.map((v, i) => wrap(v, widths[i]));
  const height = Math.max(...columns.map(c => c.length));
  return Array.from({ length: height }, (_, line) => columns.map(c => c[line] ?? ''));
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  lines.push(current);
  return lines;
}
