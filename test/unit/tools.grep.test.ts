import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GREP_MAX_LINES, grepTool } from '../../src/runtime/tools/grep';
import { runTool } from '../../src/runtime/tools/registry';
import type { ToolContext, ToolOutput } from '../../src/runtime/tools/types';

/** A ripgrep on this machine: on PATH, or the one VS Code ships (code-server's copy used by the e2e setup). */
function findRipgrep(): string | undefined {
  try {
    const found = execFileSync('which', ['rg'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  const vscodeModules = '/root/.cache/fork-agents-e2e/cs/node_modules/code-server/lib/vscode/node_modules/@vscode';
  const candidates = [
    '/usr/bin/rg',
    path.join(vscodeModules, 'ripgrep/bin/rg'),
    path.join(vscodeModules, `ripgrep-universal/bin/${process.platform}-${process.arch}/rg`),
  ];
  return candidates.find(candidate => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const RIPGREP = findRipgrep();

describe('tools: grep', () => {
  let base: string;
  let root: string;
  let outside: string;

  before(() => {
    if (!RIPGREP) console.log('    (no ripgrep found on this machine: the ripgrep cases are skipped, the fallback is tested)');
  });

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-grep-')));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'needle outside\n');
    const files: Record<string, string | Buffer> = {
      'top.ts': 'const needle = 1;\nno match here\n',
      'a/z.txt': 'Needle in a\n',
      'a-b/z.txt': 'needle in a-b\r\nsecond needle line\r\n',
      'src/x.ts': 'export function needle() {}\n// -v looks like an option\n',
      'src/sub/y.tsx': 'needle deep\n',
      '.hidden/h.ts': 'needle hidden\n',
      'node_modules/m/index.ts': 'needle in node_modules\n',
      '.git/config': 'needle in git\n',
      'bin.dat': Buffer.from('needle\0binary'),
      'long.txt': `needle ${'x'.repeat(5000)}\n`,
    };
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await fs.writeFile(path.join(root, rel), text);
    }
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await fs.symlink(outside, path.join(root, 'linkdir'));
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  const EXPECTED_ALL = [
    '.hidden/h.ts:1:needle hidden',
    'a-b/z.txt:1:needle in a-b',
    'a-b/z.txt:2:second needle line',
    /^long\.txt:1:needle x+… \[line truncated, \d+ chars\]$/,
    'src/sub/y.tsx:1:needle deep',
    'src/x.ts:1:export function needle() {}',
    'top.ts:1:const needle = 1;',
  ];

  function assertLines(out: ToolOutput, expected: Array<string | RegExp>): void {
    assert.ok(!out.isError, out.content);
    const lines = out.content.split('\n');
    assert.equal(lines.length, expected.length, out.content);
    expected.forEach((want, i) => {
      if (typeof want === 'string') assert.equal(lines[i], want);
      else assert.match(lines[i], want);
    });
  }

  const modes: Array<[string, () => string | undefined]> = [
    ['JS fallback', () => undefined],
    ['ripgrep', () => RIPGREP],
  ];
  for (const [mode, rgPath] of modes) {
    describe(mode, () => {
      let ctx: ToolContext;
      beforeEach(function () {
        if (mode === 'ripgrep' && !RIPGREP) this.skip();
        ctx = { root, signal: new AbortController().signal, ripgrepPath: rgPath() };
      });
      const grep = (input: unknown) => runTool(grepTool, input, ctx);

      it('prints path:line:text in path order, skipping .git, node_modules, binaries and symlinks', async () => {
        assertLines(await grep({ pattern: 'needle' }), EXPECTED_ALL);
      });

      it('ignore_case', async () => {
        const out = await grep({ pattern: 'NEEDLE in', ignore_case: true });
        assertLines(out, ['a/z.txt:1:Needle in a', 'a-b/z.txt:1:needle in a-b']);
      });

      it('a regex, a sub-folder, a single file', async () => {
        assertLines(await grep({ pattern: 'needle\\(\\)|deep$', path: 'src' }), ['src/sub/y.tsx:1:needle deep', 'src/x.ts:1:export function needle() {}']);
        assertLines(await grep({ pattern: 'needle', path: 'top.ts' }), ['top.ts:1:const needle = 1;']);
      });

      it('glob by file name, by path, negated', async () => {
        assertLines(await grep({ pattern: 'needle', glob: '*.{ts,tsx}' }), [
          '.hidden/h.ts:1:needle hidden', 'src/sub/y.tsx:1:needle deep', 'src/x.ts:1:export function needle() {}', 'top.ts:1:const needle = 1;',
        ]);
        assertLines(await grep({ pattern: 'needle', glob: 'src/*.ts' }), ['src/x.ts:1:export function needle() {}']);
        assertLines(await grep({ pattern: 'needle', glob: '!*.ts' }), [
          'a-b/z.txt:1:needle in a-b', 'a-b/z.txt:2:second needle line', EXPECTED_ALL[3], 'src/sub/y.tsx:1:needle deep',
        ]);
      });

      it('a pattern that looks like an option is searched for, not obeyed', async () => {
        assertLines(await grep({ pattern: '-v' }), ['src/x.ts:2:// -v looks like an option']);
        assert.match((await grep({ pattern: '--files' })).content, /^No matches for \/--files\//);
      });

      it('says so when nothing matches', async () => {
        const out = await grep({ pattern: 'haystack' });
        assert.ok(!out.isError);
        assert.equal(out.content, 'No matches for /haystack/ in the workspace.');
      });

      it('rejects an invalid regex, a path outside the root, a missing path', async () => {
        const bad = await grep({ pattern: 'a(' });
        assert.equal(bad.isError, true);
        assert.match(bad.content, /^grep: /);
        for (const p of ['..', '/etc', 'linkdir', 'link.txt']) {
          const out = await grep({ pattern: 'needle', path: p });
          assert.equal(out.isError, true, p);
          assert.match(out.content, /outside the session root/);
        }
        const missing = await grep({ pattern: 'needle', path: 'nope' });
        assert.equal(missing.isError, true);
        assert.match(missing.content, /File not found: nope/);
      });

      it('stops when cancelled', async () => {
        const controller = new AbortController();
        controller.abort();
        for (const input of [{ pattern: 'needle' }, { pattern: 'needle', path: 'top.ts' }]) {
          const out = await runTool(grepTool, input, { ...ctx, signal: controller.signal });
          assert.equal(out.isError, true);
          assert.match(out.content, /cancelled/i);
        }
      });

      it('caps the output with a note', async () => {
        await fs.writeFile(path.join(root, 'many.txt'), Array.from({ length: GREP_MAX_LINES + 50 }, (_, i) => `hit ${i}`).join('\n'));
        const out = await grep({ pattern: '^hit', path: 'many.txt' });
        const lines = out.content.split('\n');
        assert.equal(lines[0], 'many.txt:1:hit 0');
        assert.equal(lines[GREP_MAX_LINES - 1], `many.txt:${GREP_MAX_LINES}:hit ${GREP_MAX_LINES - 1}`);
        assert.match(out.content, new RegExp(`\\[Output capped at ${GREP_MAX_LINES} lines`));
      });
    });
  }

  it('falls back to JS when the ripgrep path cannot be started', async () => {
    const ctx: ToolContext = { root, signal: new AbortController().signal, ripgrepPath: path.join(base, 'no-such-rg') };
    assertLines(await runTool(grepTool, { pattern: 'needle' }, ctx), EXPECTED_ALL);
  });

  it('rejects malformed input clearly', async () => {
    const ctx: ToolContext = { root, signal: new AbortController().signal };
    for (const [input, pattern] of [
      [{}, /missing required field "pattern"/],
      [{ pattern: '' }, /pattern is empty/],
      [{ pattern: 'a', ignore_case: 'true' }, /"ignore_case" must be a boolean/],
      [{ pattern: 'a', glob: '{x' }, /unmatched "\{"/],
      [{ pattern: 'a', regex: true }, /unknown field "regex"/],
    ] as Array<[unknown, RegExp]>) {
      const out = await runTool(grepTool, input, ctx);
      assert.equal(out.isError, true);
      assert.match(out.content, pattern);
    }
  });
});
