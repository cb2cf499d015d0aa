// Hunks of attempts' patches (the unified patches `fork/review` returns, all against the same base):
// numbered per attempt in patch order, chosen by number, checked for overlaps between attempts, and put
// back together as one patch for `git apply`. Pure text work; applying is git's (git/applyPatch.ts).

export interface Hunk {
  /** 1-based, across the attempt's whole patch. */
  number: number;
  path: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The `@@` line's trailing text (the function context git prints). */
  context: string;
  /** Body lines (' ', '-', '+', '\\'), without the `@@` line. */
  lines: string[];
}

export interface PatchFile {
  path: string;
  /** `diff --git …` through `+++ …` (or the binary / mode-only lines). */
  header: string[];
  hunks: Hunk[];
  /** Binary, mode-only, added or deleted: taken whole, never hunk by hunk. */
  whole: boolean;
  /** The file's whole text in the patch (for whole-file changes). */
  text: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

export function parsePatch(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  let hunk: Hunk | undefined;
  let number = 0;
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      const match = / b\/(.+)$/.exec(line);
      file = { path: match ? match[1] : line, header: [line], hunks: [], whole: false, text: line + '\n' };
      files.push(file);
      hunk = undefined;
      continue;
    }
    if (!file) continue;
    file.text += line + '\n';
    const header = HUNK_HEADER.exec(line);
    if (header) {
      hunk = {
        number: ++number, path: file.path, oldStart: Number(header[1]), oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]), newLines: header[4] === undefined ? 1 : Number(header[4]), context: header[5], lines: [],
      };
      file.hunks.push(hunk);
      continue;
    }
    if (hunk) {
      hunk.lines.push(line);
      continue;
    }
    file.header.push(line);
    if (/^(new file mode|deleted file mode|GIT binary patch|Binary files|old mode|new mode)/.test(line)) file.whole = true;
  }
  // A whole-file change counts as one hunk of its own so it can be chosen by number too.
  for (const f of files) if (f.whole && f.hunks.length === 0) f.hunks.push({ number: 0, path: f.path, oldStart: 0, oldLines: 0, newStart: 0, newLines: 0, context: '', lines: [] });
  renumber(files);
  return files;
}

function renumber(files: PatchFile[]): void {
  let n = 0;
  for (const f of files) for (const h of f.whole ? f.hunks.slice(0, 1) : f.hunks) h.number = ++n;
  for (const f of files) if (f.whole) f.hunks.splice(1);
}

export interface Choice { label: string; files: PatchFile[]; numbers: number[] | 'all' }
export interface ChosenHunk { label: string; file: PatchFile; hunk: Hunk }
export interface HunkConflict { path: string; between: [string, string]; hunks: [number, number]; reason: string }

/** The chosen hunks; an unknown number is an error naming the choice. */
export function chooseHunks(choices: readonly Choice[]): ChosenHunk[] {
  const chosen: ChosenHunk[] = [];
  for (const choice of choices) {
    const all = choice.files.flatMap(file => file.hunks.map(hunk => ({ label: choice.label, file, hunk })));
    if (choice.numbers === 'all') {
      chosen.push(...all);
      continue;
    }
    for (const n of choice.numbers) {
      const found = all.find(c => c.hunk.number === n);
      if (!found) throw new RangeError(`${choice.label} has no hunk ${n} (it has ${all.length}).`);
      chosen.push(found);
    }
  }
  return chosen;
}

/**
 * Chosen hunks of different attempts that touch the same base lines (or the same whole file, or insert at
 * the same place) conflict: neither may silently win. Hunks of one attempt never conflict with each other.
 */
export function findConflicts(chosen: readonly ChosenHunk[]): HunkConflict[] {
  const conflicts: HunkConflict[] = [];
  for (let i = 0; i < chosen.length; i++) {
    for (let j = i + 1; j < chosen.length; j++) {
      const a = chosen[i];
      const b = chosen[j];
      if (a.label === b.label || a.file.path !== b.file.path) continue;
      const reason = a.file.whole || b.file.whole ? 'a whole-file change (added, deleted, binary or mode) chosen from both' : overlapReason(a.hunk, b.hunk);
      if (reason) conflicts.push({ path: a.file.path, between: [a.label, b.label], hunks: [a.hunk.number, b.hunk.number], reason });
    }
  }
  return conflicts;
}

/** Base line spans the hunk replaces (context included: git needs that context unchanged to apply it). */
function overlapReason(a: Hunk, b: Hunk): string | undefined {
  const [aEnd, bEnd] = [a.oldStart + Math.max(a.oldLines, 1), b.oldStart + Math.max(b.oldLines, 1)];
  if (a.oldStart < bEnd && b.oldStart < aEnd) return `both change lines ${Math.max(a.oldStart, b.oldStart)}–${Math.min(aEnd, bEnd) - 1} of the base`;
  return undefined;
}

/** One patch of the chosen hunks, per file in base order, each hunk's new start shifted by those before it. */
export function combinedPatch(chosen: readonly ChosenHunk[]): string {
  const byPath = new Map<string, ChosenHunk[]>();
  for (const c of chosen) byPath.set(c.file.path, [...(byPath.get(c.file.path) ?? []), c]);
  let out = '';
  for (const [, list] of [...byPath].sort(([a], [b]) => a.localeCompare(b))) {
    const whole = list.find(c => c.file.whole);
    if (whole) {
      out += whole.file.text;
      continue;
    }
    // The header of the first attempt minus its `index` line: that names blobs of one attempt's result only.
    out += list[0].file.header.filter(line => !line.startsWith('index ')).join('\n') + '\n';
    let shift = 0;
    for (const { file, hunk } of [...list].sort((x, y) => x.hunk.oldStart - y.hunk.oldStart)) {
      // Its attempt's own earlier hunks shifted its new start; in the combined file only the chosen ones do.
      const ownBefore = file.hunks.filter(h => h.oldStart < hunk.oldStart).reduce((sum, h) => sum + h.newLines - h.oldLines, 0);
      const newStart = hunk.newStart - ownBefore + shift;
      out += `@@ -${hunk.oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@${hunk.context}\n`;
      out += hunk.lines.map(line => line + '\n').join('');
      shift += hunk.newLines - hunk.oldLines;
    }
  }
  return out;
}

/** Lines added and removed by a patch, over its text hunks. */
export function lineCounts(files: readonly PatchFile[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const file of files) {
    for (const line of file.text.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) added++;
      else if (line.startsWith('-') && !line.startsWith('---')) removed++;
    }
  }
  return { added, removed };
}
