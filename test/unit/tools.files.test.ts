import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editFileTool } from '../../src/runtime/tools/edit_file';
import { LIST_MAX_FILES, listFilesTool } from '../../src/runtime/tools/list_files';
import { READ_MAX_LINES, readFileTool } from '../../src/runtime/tools/read_file';
import { runTool } from '../../src/runtime/tools/registry';
import { writeFileTool } from '../../src/runtime/tools/write_file';
import type { Tool, ToolContext, ToolOutput } from '../../src/runtime/tools/types';

describe('tools: file tools', () => {
  let base: string;
  let root: string;
  let outside: string;
  let ctx: ToolContext;

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-files-')));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    await fs.mkdir(root);
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'top secret\n');
    ctx = { root, signal: new AbortController().signal };
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  const run = (tool: Tool, input: unknown): Promise<ToolOutput> => runTool(tool, input, ctx);
  const write = (rel: string, text: string | Buffer) =>
    fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true }).then(() => fs.writeFile(path.join(root, rel), text));
  const readBack = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');
  function assertError(out: ToolOutput, pattern: RegExp): void {
    assert.equal(out.isError, true, `expected an error result, got: ${out.content}`);
    assert.match(out.content, pattern);
  }
  function assertOk(out: ToolOutput): void {
    assert.ok(!out.isError, `unexpected error: ${out.content}`);
  }

  describe('read_file', () => {
    it('returns numbered lines and the file as an anchor', async () => {
      await write('src/a.txt', 'alpha\nbeta\r\ngamma');
      const out = await run(readFileTool, { path: 'src/a.txt' });
      assertOk(out);
      assert.equal(out.content, '     1\talpha\n     2\tbeta\n     3\tgamma');
      assert.deepEqual(out.files, ['src/a.txt']);
    });

    it('reads a line range and says where to continue', async () => {
      await write('n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
      const out = await run(readFileTool, { path: 'n.txt', offset: 3, limit: 2 });
      assert.ok(out.content.startsWith('     3\tline 3\n     4\tline 4\n'), out.content);
      assert.match(out.content, /Showing lines 3-4 of n\.txt; more lines follow\. Call read_file with offset=5/);
      const tail = await run(readFileTool, { path: 'n.txt', offset: 9, limit: 5 });
      assert.equal(tail.content, '     9\tline 9\n    10\tline 10');
    });

    it('caps at the line limit with a truncation note', async () => {
      await write('big.txt', Array.from({ length: READ_MAX_LINES + 5 }, (_, i) => `${i + 1}`).join('\n'));
      const out = await run(readFileTool, { path: 'big.txt' });
      assert.equal(out.content.split('\n').filter(l => /^\s+\d+\t/.test(l)).length, READ_MAX_LINES);
      assert.match(out.content, new RegExp(`offset=${READ_MAX_LINES + 1} to continue`));
    });

    it('caps at 256 KB with a truncation note', async () => {
      const line = 'x'.repeat(1000);
      await write('wide.txt', Array.from({ length: 400 }, () => line).join('\n'));
      const out = await run(readFileTool, { path: 'wide.txt' });
      assert.ok(out.content.length <= 256 * 1024 + 200, `${out.content.length}`);
      assert.match(out.content, /Output capped at 256 KB after line (\d+)/);
    });

    it('refuses binary files, directories, missing files, and offsets past the end', async () => {
      await write('bin.dat', Buffer.from([0x89, 0x50, 0x00, 0x01]));
      await write('dir/x.txt', 'x\n');
      await write('short.txt', 'one\ntwo\n');
      assertError(await run(readFileTool, { path: 'bin.dat' }), /binary/);
      assertError(await run(readFileTool, { path: 'dir' }), /is a directory/);
      assertError(await run(readFileTool, { path: 'nope.txt' }), /File not found: nope\.txt/);
      assertError(await run(readFileTool, { path: 'short.txt', offset: 5 }), /past the end of short\.txt, which has 2 lines/);
    });

    it('cuts over-long lines', async () => {
      await write('min.js', `${'y'.repeat(5000)}\nshort\n`);
      const out = await run(readFileTool, { path: 'min.js' });
      assert.equal(out.content, `     1\t${'y'.repeat(2000)}… [line truncated]\n     2\tshort`);
    });

    it('reports an empty file', async () => {
      await write('empty.txt', '');
      assert.equal((await run(readFileTool, { path: 'empty.txt' })).content, '[empty.txt is empty.]');
    });

    it('refuses paths outside the root: .., absolute, symlink out', async () => {
      await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
      await fs.symlink(outside, path.join(root, 'leakdir'));
      for (const p of ['../outside/secret.txt', '/etc/passwd', 'leak.txt', 'leakdir/secret.txt']) {
        const out = await run(readFileTool, { path: p });
        assertError(out, new RegExp(`outside the session root ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        assert.doesNotMatch(out.content, /top secret/);
      }
    });
  });

  describe('write_file', () => {
    it('creates parent folders and reports created/overwrote', async () => {
      const out = await run(writeFileTool, { path: 'a/b/c.txt', content: 'hi\nthere\n' });
      assertOk(out);
      assert.equal(out.content, 'Created a/b/c.txt (2 lines, 9 bytes).');
      assert.deepEqual(out.files, ['a/b/c.txt']);
      assert.equal(await readBack('a/b/c.txt'), 'hi\nthere\n');
      const again = await run(writeFileTool, { path: path.join(root, 'a/b/c.txt'), content: 'bye' });
      assert.equal(again.content, 'Overwrote a/b/c.txt (1 line, 3 bytes).');
      assert.equal(await readBack('a/b/c.txt'), 'bye');
    });

    it('refuses to write outside the root, including through symlinks', async () => {
      await fs.symlink(outside, path.join(root, 'leakdir'));
      await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
      for (const p of ['../outside/new.txt', path.join(outside, 'new.txt'), 'leakdir/new.txt', 'leak.txt', 'leakdir/sub/new.txt']) {
        assertError(await run(writeFileTool, { path: p, content: 'pwned' }), /outside the session root/);
      }
      assert.deepEqual((await fs.readdir(outside)).sort(), ['secret.txt']);
      assert.equal(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret\n');
    });

    it('refuses a directory as the target', async () => {
      await write('d/x', 'x');
      assertError(await run(writeFileTool, { path: 'd', content: 'x' }), /is a directory/);
    });
  });

  describe('edit_file', () => {
    beforeEach(() => write('e.ts', 'const a = 1;\nconst b = 1;\nconst c = 2;\n'));

    it('replaces a unique match and reports the line', async () => {
      const out = await run(editFileTool, { path: 'e.ts', old_string: 'const c = 2;', new_string: 'const c = 3;' });
      assertOk(out);
      assert.equal(out.content, 'Edited e.ts: replaced 1 occurrence at line 3.');
      assert.deepEqual(out.files, ['e.ts']);
      assert.equal(await readBack('e.ts'), 'const a = 1;\nconst b = 1;\nconst c = 3;\n');
    });

    it('errors on zero matches and leaves the file alone', async () => {
      assertError(await run(editFileTool, { path: 'e.ts', old_string: 'const d', new_string: 'x' }), /not found in e\.ts/);
      assert.equal(await readBack('e.ts'), 'const a = 1;\nconst b = 1;\nconst c = 2;\n');
    });

    it('errors on several matches unless replace_all', async () => {
      assertError(await run(editFileTool, { path: 'e.ts', old_string: '= 1;', new_string: '= 9;' }), /occurs 2 times in e\.ts \(lines 1, 2\).*replace_all/);
      const out = await run(editFileTool, { path: 'e.ts', old_string: '= 1;', new_string: '= 9;', replace_all: true });
      assert.equal(out.content, 'Edited e.ts: replaced 2 occurrences.');
      assert.equal(await readBack('e.ts'), 'const a = 9;\nconst b = 9;\nconst c = 2;\n');
    });

    it('inserts new_string literally ($& and $1 are not patterns)', async () => {
      await run(editFileTool, { path: 'e.ts', old_string: 'const c = 2;', new_string: "const c = '$&$1$$';" });
      assert.equal(await readBack('e.ts'), "const a = 1;\nconst b = 1;\nconst c = '$&$1$$';\n");
    });

    it('matches LF-quoted text in a CRLF file and keeps CRLF', async () => {
      await write('crlf.txt', 'one\r\ntwo\r\nthree\r\n');
      assertOk(await run(editFileTool, { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' }));
      assert.equal(await readBack('crlf.txt'), 'uno\r\ndos\r\nthree\r\n');
    });

    it('rejects identical strings, empty old_string, missing files and escapes', async () => {
      assertError(await run(editFileTool, { path: 'e.ts', old_string: 'a', new_string: 'a' }), /identical/);
      assertError(await run(editFileTool, { path: 'e.ts', old_string: '', new_string: 'a' }), /empty/);
      assertError(await run(editFileTool, { path: 'missing.ts', old_string: 'a', new_string: 'b' }), /File not found: missing\.ts/);
      await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
      assertError(await run(editFileTool, { path: 'leak.txt', old_string: 'top', new_string: 'pwned' }), /outside the session root/);
      assert.equal(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret\n');
    });
  });

  describe('list_files', () => {
    beforeEach(async () => {
      for (const rel of ['b.ts', 'a.md', 'src/z.ts', 'src/a.tsx', 'src/deep/y.ts', 'src/.hidden.ts', 'node_modules/m/index.ts', '.git/HEAD', 'lib/x.js']) {
        await write(rel, 'x\n');
      }
    });

    it('lists every file, sorted, skipping .git and node_modules', async () => {
      const out = await run(listFilesTool, {});
      assertOk(out);
      assert.equal(out.content, ['a.md', 'b.ts', 'lib/x.js', 'src/.hidden.ts', 'src/a.tsx', 'src/deep/y.ts', 'src/z.ts'].join('\n'));
    });

    it('skips a .git file too (a worktree\'s or a submodule\'s pointer to its repository)', async () => {
      await write('vendor/lib/.git', 'gitdir: ../../.git/modules/lib\n');
      await write('vendor/lib/index.js', 'x\n');
      const out = await run(listFilesTool, { path: 'vendor' });
      assert.equal(out.content, 'vendor/lib/index.js');
    });

    it('matches globs relative to path, printing root-relative paths', async () => {
      assert.equal((await run(listFilesTool, { pattern: '*.ts' })).content, 'b.ts');
      assert.equal((await run(listFilesTool, { pattern: '**/*.ts' })).content, 'b.ts\nsrc/.hidden.ts\nsrc/deep/y.ts\nsrc/z.ts');
      assert.equal((await run(listFilesTool, { pattern: '**/*.{ts,tsx}', path: 'src' })).content, 'src/.hidden.ts\nsrc/a.tsx\nsrc/deep/y.ts\nsrc/z.ts');
      assert.equal((await run(listFilesTool, { pattern: '*', path: 'src/deep' })).content, 'src/deep/y.ts');
      assert.equal((await run(listFilesTool, { pattern: '?.md' })).content, 'a.md');
      assert.match((await run(listFilesTool, { pattern: '**/*.py' })).content, /^No files match "\*\*\/\*\.py" under the workspace root\.$/);
    });

    it('caps the listing with a note', async () => {
      await Promise.all(Array.from({ length: LIST_MAX_FILES + 20 }, (_, i) => write(`many/f${String(i).padStart(5, '0')}.txt`, '')));
      const out = await run(listFilesTool, { path: 'many' });
      const lines = out.content.split('\n');
      assert.equal(lines[0], 'many/f00000.txt');
      assert.equal(lines[LIST_MAX_FILES - 1], `many/f${String(LIST_MAX_FILES - 1).padStart(5, '0')}.txt`);
      assert.match(out.content, new RegExp(`Showing the first ${LIST_MAX_FILES} of ${LIST_MAX_FILES + 20} matching files`));
    });

    it('stops when cancelled', async () => {
      const controller = new AbortController();
      controller.abort();
      assertError(await runTool(listFilesTool, {}, { root, signal: controller.signal }), /cancelled/i);
    });

    it('does not follow a symlinked folder out of the root, and refuses path outside', async () => {
      await fs.symlink(outside, path.join(root, 'leakdir'));
      const out = await run(listFilesTool, { pattern: '**/secret.txt' });
      assert.match(out.content, /^No files match/);
      assertError(await run(listFilesTool, { path: '../outside' }), /outside the session root/);
      assertError(await run(listFilesTool, { path: 'leakdir' }), /outside the session root/);
      assertError(await run(listFilesTool, { path: 'b.ts' }), /is a file, not a folder/);
      assertError(await run(listFilesTool, { pattern: '{a,b' }), /unmatched "\{"/);
    });
  });

  describe('malformed input', () => {
    const cases: Array<[Tool, unknown, RegExp]> = [
      [readFileTool, undefined, /read_file: input must be a JSON object/],
      [readFileTool, 'README.md', /read_file: input must be a JSON object/],
      [readFileTool, ['a'], /input must be a JSON object/],
      [readFileTool, {}, /read_file: missing required field "path"/],
      [readFileTool, { path: 42 }, /"path" must be a string, got a number/],
      [readFileTool, { path: 'a', offset: 0 }, /"offset" must be an integer from 1/],
      [readFileTool, { path: 'a', limit: 1.5 }, /"limit" must be an integer/],
      [readFileTool, { path: 'a', offset: '3' }, /"offset" must be an integer from 1 to \d+, got a string/],
      [readFileTool, { path: 'a', bogus: 1 }, /unknown field "bogus" \(accepted fields: path, offset, limit\)/],
      [writeFileTool, { path: 'a' }, /missing required field "content"/],
      [writeFileTool, { path: 'a', content: null }, /"content" must be a string, got null/],
      [editFileTool, { path: 'a', old_string: 'x' }, /missing required field "new_string"/],
      [editFileTool, { path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' }, /"replace_all" must be a boolean/],
      [listFilesTool, { pattern: ['*.ts'] }, /"pattern" must be a string, got an array/],
      [listFilesTool, null, /input must be a JSON object/],
    ];
    for (const [tool, input, pattern] of cases) {
      it(`${tool.definition.name} ${JSON.stringify(input) ?? 'undefined'}`, async () => {
        assertError(await run(tool, input), pattern);
        assert.equal(typeof tool.describe(input), 'string');
      });
    }
  });
});
