// A store written by main's code before history was kept once (test/fixtures/store-v1-segments): a chat
// whose history was sealed into copied v1 segment files (a tool exchange among it), and a finished fork
// that inherits it by reference to those segments.
import * as fs from 'node:fs';
import * as path from 'node:path';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/store-v1-segments');
export const V1_CHAT = 's-f3b8e84c-2ce9-405d-a5a2-a006d5e8100f';
export const V1_FORK = 'f-8552a821-9279-429c-b27f-e9f872e0f81c';

/** Copies the fixture into `storeDir` with its work folder moved to `root` (segment files are copied byte for byte: their names are their hashes). */
export function copyV1Store(storeDir: string, root: string): void {
  for (const dir of ['sessions', 'segments']) fs.mkdirSync(path.join(storeDir, dir), { recursive: true, mode: 0o700 });
  for (const name of fs.readdirSync(path.join(FIXTURE, 'sessions'))) {
    const text = fs.readFileSync(path.join(FIXTURE, 'sessions', name), 'utf8').split('/FIXTURE_ROOT').join(root);
    fs.writeFileSync(path.join(storeDir, 'sessions', name), text, { mode: 0o600 });
  }
  for (const name of fs.readdirSync(path.join(FIXTURE, 'segments'))) {
    fs.copyFileSync(path.join(FIXTURE, 'segments', name), path.join(storeDir, 'segments', name));
    fs.chmodSync(path.join(storeDir, 'segments', name), 0o600);
  }
  fs.writeFileSync(path.join(root, 'notes.txt'), 'the notes say 42');
}
