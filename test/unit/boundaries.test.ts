// Layer boundaries (ARCHITECTURE.md), enforced by reading every import rather than by convention.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter(name => name.endsWith('.ts'))
    .map(name => path.join(dir, name));
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g)]
    .map(m => m[1] ?? m[2] ?? m[3]);
}

function offenders(files: string[], forbidden: (specifier: string, file: string) => boolean): string[] {
  return files.flatMap(file => importsOf(file).filter(spec => forbidden(spec, file)).map(spec => `${file} imports ${spec}`));
}

describe('layer boundaries', () => {
  it('src/common imports neither vscode nor Node nor packages', () => {
    assert.deepEqual(offenders(sources('src/common'), spec => !spec.startsWith('.')), []);
  });

  it('only src/extension.ts and src/host import vscode', () => {
    const files = [...sources('src/runtime'), ...sources('src/cli'), ...sources('src/client'), ...sources('src/common')];
    assert.deepEqual(offenders(files, spec => spec === 'vscode' || spec.startsWith('vscode-languageclient')), []);
  });

  it('only src/runtime/model imports @anthropic-ai/sdk', () => {
    const files = [...sources('src'), ...sources('webview')].filter(f => !f.startsWith(path.join('src', 'runtime', 'model')));
    assert.deepEqual(offenders(files, spec => spec.startsWith('@anthropic-ai/')), []);
  });

  it('webview imports only src/common (and itself)', () => {
    assert.deepEqual(offenders(sources('webview'), (spec, file) => {
      if (!spec.startsWith('.')) return true;
      const target = path.normalize(path.join(path.dirname(file), spec));
      return !target.startsWith('webview') && !target.startsWith(path.join('src', 'common'));
    }), []);
  });

  it('the runtime never imports the extension host', () => {
    assert.deepEqual(offenders([...sources('src/runtime'), ...sources('src/cli')], spec => /(^|\/)host\//.test(spec)), []);
  });

  it('no default exports anywhere in src', () => {
    const found = sources('src').filter(file => /^export default /m.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    assert.deepEqual(found, []);
  });
});
