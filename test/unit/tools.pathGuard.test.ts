import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileGlob } from '../../src/runtime/tools/glob';
import { resolveInsideRoot } from '../../src/runtime/tools/pathGuard';
import { ToolError } from '../../src/runtime/tools/types';

describe('tools: resolveInsideRoot', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fa-guard-')));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(root, 'src', 'a.ts'), 'a\n');
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  async function rejects(userPath: string, pattern: RegExp): Promise<void> {
    await assert.rejects(resolveInsideRoot(root, userPath), (err: unknown) => {
      assert.ok(err instanceof ToolError, `expected a ToolError, got ${String(err)}`);
      assert.match(err.message, pattern);
      return true;
    });
  }

  it('accepts root-relative and absolute paths inside the root', async () => {
    assert.deepEqual(await resolveInsideRoot(root, 'src/a.ts'), { abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts', root });
    assert.deepEqual(await resolveInsideRoot(root, path.join(root, 'src', 'a.ts')), { abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts', root });
    assert.deepEqual(await resolveInsideRoot(root, './src/../src/a.ts'), { abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts', root });
    assert.deepEqual(await resolveInsideRoot(root, '.'), { abs: root, rel: '.', root });
  });

  it('accepts files that do not exist yet, below missing folders', async () => {
    assert.deepEqual(await resolveInsideRoot(root, 'new/deep/file.txt'), { abs: path.join(root, 'new', 'deep', 'file.txt'), rel: 'new/deep/file.txt', root });
  });

  it('rejects .. escapes and absolute paths elsewhere, naming the root', async () => {
    await rejects('../outside/secret.txt', new RegExp(`outside the session root ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await rejects('src/../../x', /outside the session root/);
    await rejects('/etc/passwd', /outside the session root/);
    await rejects(outside, /outside the session root/);
  });

  it('rejects a symlink inside the root that leads out, and files below it', async () => {
    await fs.symlink(outside, path.join(root, 'link-dir'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-file'));
    await rejects('link-dir/secret.txt', /symbolic link/);
    await rejects('link-dir/new-file.txt', /symbolic link/);
    await rejects('link-file', /symbolic link/);
  });

  it('rejects a dangling symlink (writing through it would create its target)', async () => {
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
    await rejects('dangling', /symbolic link whose target does not exist/);
  });

  it('accepts a symlink that stays inside the root and reports the real path', async () => {
    await fs.symlink(path.join(root, 'src'), path.join(root, 'alias'));
    assert.deepEqual(await resolveInsideRoot(root, 'alias/a.ts'), { abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts', root });
  });

  it('accepts a root given through a symlink', async () => {
    const linkedRoot = path.join(base, 'linked-root');
    await fs.symlink(root, linkedRoot);
    assert.deepEqual(await resolveInsideRoot(linkedRoot, 'src/a.ts'), { abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts', root });
    assert.equal((await resolveInsideRoot(linkedRoot, path.join(linkedRoot, 'src/a.ts'))).rel, 'src/a.ts');
  });

  it('rejects empty paths and NUL bytes', async () => {
    await rejects('', /empty/);
    await rejects('   ', /empty/);
    await rejects('src/a\0.ts', /NUL/);
  });
});

describe('tools: compileGlob', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['*.ts', ['a.ts', '.hidden.ts'], ['src/a.ts', 'a.tsx', 'a.js']],
    ['**/*.ts', ['a.ts', 'src/a.ts', 'src/deep/er/a.ts'], ['a.tsx', 'src/a.js']],
    ['src/**', ['src/a', 'src/b/c.ts'], ['srcx/a', 'a/src/b']],
    ['src/**/test/*.ts', ['src/test/a.ts', 'src/x/y/test/a.ts'], ['src/test/x/a.ts', 'test/a.ts']],
    ['?.md', ['a.md'], ['ab.md', '/.md']],
    ['*.{ts,tsx}', ['a.ts', 'a.tsx'], ['a.js', 'a.t']],
    ['{src,test}/**/*.{ts,js}', ['src/a.ts', 'test/x/b.js'], ['lib/a.ts', 'src/a.md']],
    ['{a,b{c,d}}.txt', ['a.txt', 'bc.txt', 'bd.txt'], ['b.txt', 'abc.txt']],
    ['file[0-9].txt', ['file1.txt'], ['filex.txt', 'file10.txt']],
    ['file[!0-9].txt', ['filex.txt'], ['file1.txt', 'file/.txt']],
    ['a+b(1).txt', ['a+b(1).txt'], ['aab1.txt']],
    ['\\*.txt', ['*.txt'], ['a.txt']],
    ['./src/*.ts', ['src/a.ts'], ['a.ts']],
  ];
  for (const [glob, yes, no] of cases) {
    it(`${glob}`, () => {
      const re = compileGlob(glob);
      for (const p of yes) assert.ok(re.test(p), `${glob} should match ${p}`);
      for (const p of no) assert.ok(!re.test(p), `${glob} should not match ${p}`);
    });
  }

  it('rejects malformed globs with a ToolError', () => {
    assert.throws(() => compileGlob('{a,b'), ToolError);
    assert.throws(() => compileGlob('[ab'), ToolError);
    assert.ok(compileGlob('a}').test('a}'), 'a lone "}" is a plain character (picomatch)');
    assert.throws(() => compileGlob(''), ToolError);
  });
});
