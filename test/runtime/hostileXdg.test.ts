// A second local user and an XDG_RUNTIME_DIR they can write: the socket must not be put there (they could
// swap the folder between the check and the connect, or squat the name). It is used only when it is the
// user's own and 0700; otherwise the per-user folder in the temp folder is.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { socketPathFor } from '../../src/ipc/socketPath';
import { startHarness } from './harness';
import type { Harness } from './harness';
import { canCreateUsers, createLocalUser, runAs, squat } from './localUsers';
import type { LocalUser, Squatter } from './localUsers';
import { say } from './script';

describe('runtime: a hostile XDG_RUNTIME_DIR', function () {
  this.timeout(60_000);
  let other: LocalUser;
  let h: Harness | undefined;
  let saved: string | undefined;
  let squatter: Squatter | undefined;

  before(function () {
    if (!canCreateUsers()) {
      console.log('    skipped: creating a second local user needs root (useradd); run these tests as root');
      this.skip();
    }
    other = createLocalUser('faxdg');
  });
  after(() => other?.remove());
  beforeEach(() => (saved = process.env.XDG_RUNTIME_DIR));
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    if (squatter) await squatter.bytesReceived();
    squatter = undefined;
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
  });

  it("a folder the other user owns and pre-filled with a listener at the socket's name: not used, nothing reaches them, the runtime serves", async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-xdg-'));
    fs.chmodSync(base, 0o755);
    const xdg = path.join(base, 'xdg');
    fs.mkdirSync(xdg, { mode: 0o777 });
    fs.chownSync(xdg, other.uid, other.gid);
    // A store path too long for a socket address, so the socket would go to $XDG_RUNTIME_DIR.
    const storeDir = path.join(base, 's'.repeat(110));
    process.env.XDG_RUNTIME_DIR = xdg;
    // The same `<digest>.sock` name in every folder the socket can be in.
    const predicted = path.join(xdg, 'fork-agents', path.basename(socketPathFor(storeDir)));
    await runAs(other, `require('fs').mkdirSync(process.argv[1], { mode: 0o777 })`, [path.dirname(predicted)]);
    squatter = squat(other, predicted);
    await squatter.ready;

    h = await startHarness({ storeDir });
    assert.ok(!socketPathFor(storeDir).startsWith(xdg), `the socket is not in the hostile folder: ${socketPathFor(storeDir)}`);
    h.fake.setResponder(() => say('hi'));
    assert.equal((await h.send('hello')).stopReason, 'end_turn');
    assert.equal(await squatter.bytesReceived(), 0, 'the other user received nothing');
    squatter = undefined;
  });
});

