// A fork's report split at its sections (Scope / Result / Key files / Files changed / Verification / Issues, the
// form the fork's directive asks for), whatever the model did to the labels: bold, a heading, a bullet,
// indentation. Each section's text is dedented, so an indented report does not turn into a code block, and
// a label line after a list starts its own section instead of folding into the last bullet. Pure.

export const REPORT_LABELS = ['Scope', 'Result', 'Key files', 'Files changed', 'Verification', 'Issues'] as const;
export type ReportLabel = (typeof REPORT_LABELS)[number];

export interface ReportSection { label: ReportLabel; text: string }
/** `intro`: text before the first label (often empty); `sections` in the order written. */
export interface SplitReport { intro: string; sections: ReportSection[] }

// "  - **Key files:** a.ts", "## Files changed", "__Result__: done", "Verification — ran npm test".
const LABEL_LINE = new RegExp(
  '^\\s{0,12}(?<bullet>[-*+]\\s+|>\\s*)?(?<heading>#{1,6}\\s+)?(?<open>\\*\\*|__)?' +
  `(?<label>${REPORT_LABELS.join('|')})(?<close>\\*\\*|__)?\\s*(?<sep>:|—|–|-(?=\\s))?(?<after>\\*\\*|__)?(?:\\s+|$)(?<rest>.*)$`,
  'i',
);
const FENCE = /^\s*(```|~~~)/;

export function splitReport(report: string): SplitReport {
  const intro: string[] = [];
  const sections: { label: ReportLabel; lines: string[] }[] = [];
  let fence: string | undefined;
  for (const line of report.replace(/\r\n?/g, '\n').split('\n')) {
    const fenceMark = FENCE.exec(line)?.[1];
    const label = fence ? undefined : labelOf(line);
    if (label) sections.push({ label: label.label, lines: label.rest.trim() === '' ? [] : [label.rest] });
    else (sections.at(-1)?.lines ?? intro).push(line);
    if (fenceMark) fence = fence === undefined ? fenceMark : fence === fenceMark ? undefined : fence;
  }
  return { intro: dedent(intro).trim(), sections: sections.map(s => ({ label: s.label, text: dedent(s.lines).trim() })) };
}

/** A heading or a bold label counts without a colon; a plain word needs one ("Result was fine" is prose). */
function labelOf(line: string): { label: ReportLabel; rest: string } | undefined {
  const g = LABEL_LINE.exec(line)?.groups;
  if (!g) return undefined;
  const marked = g.heading !== undefined || g.sep !== undefined || (g.open !== undefined && (g.close ?? g.after) !== undefined);
  return marked ? { label: canonical(g.label), rest: g.rest } : undefined;
}

function canonical(word: string): ReportLabel {
  return REPORT_LABELS.find(l => l.toLowerCase() === word.toLowerCase().replace(/\s+/g, ' '))!;
}

/** Removes the indentation all non-empty lines share (the first line's own text is already trimmed). */
function dedent(lines: readonly string[]): string {
  const rest = lines.slice(1).filter(l => l.trim() !== '');
  const indent = Math.min(...rest.map(l => /^\s*/.exec(l)![0].length), Number.MAX_SAFE_INTEGER);
  const cut = indent === Number.MAX_SAFE_INTEGER ? 0 : indent;
  return lines.map((l, i) => (i === 0 ? l.trimStart() : l.slice(Math.min(cut, /^\s*/.exec(l)![0].length)))).join('\n');
}
