// The file-backed memento the worktree roots use: what one instance writes, a new instance (a reloaded
// window) reads back at once; a damaged file means "nothing remembered", never a crash.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileMemento, durableMemento } from '../../src/host/fileMemento';

describe('FileMemento', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-memento-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is readable by a new instance as soon as update returns', async () => {
    const file = path.join(dir, 'nested', 'state.json');
    const first = new FileMemento(file);
    await first.update('added', ['f-1', 'f-2']);
    await first.update('choice', 'add');
    const reloaded = new FileMemento(file);
    assert.deepEqual(reloaded.get('added'), ['f-1', 'f-2']);
    assert.equal(reloaded.get('choice'), 'add');
    assert.deepEqual([...reloaded.keys()].sort(), ['added', 'choice']);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['state.json'], 'no temporary file left behind');
  });

  it('forgets a key updated to undefined and returns the default for unknown keys', async () => {
    const file = path.join(dir, 'state.json');
    const memento = new FileMemento(file);
    await memento.update('pending', [{ forkId: 'f-1' }]);
    await memento.update('pending', undefined);
    assert.equal(new FileMemento(file).get('pending'), undefined);
    assert.deepEqual(memento.get('missing', []), []);
  });

  it('starts empty from a torn or foreign file and rewrites it whole on the next update', async () => {
    const file = path.join(dir, 'state.json');
    for (const damaged of ['{"added": ["f-1"', '[1, 2]', 'null']) {
      fs.writeFileSync(file, damaged);
      const memento = new FileMemento(file);
      assert.deepEqual(memento.keys(), []);
      await memento.update('choice', 'skip');
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { choice: 'skip' });
    }
  });

  it('is used only for folders on this machine\'s disk', () => {
    const fallback = new FileMemento(path.join(dir, 'fallback.json'));
    const folder = (scheme: string) => ({ scheme, fsPath: dir }) as unknown as Parameters<typeof durableMemento>[0];
    assert.notEqual(durableMemento(folder('file'), 'state.json', fallback), fallback);
    assert.equal(durableMemento(folder('vscode-userdata'), 'state.json', fallback), fallback);
    assert.equal(durableMemento(undefined, 'state.json', fallback), fallback);
  });
});
