// A repository in a shared folder (here one like /tmp: 1777) whose worktrees' folder another real local user
// created first: a fork is refused there with the reason, through the built CLI, and nothing is created in it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRunner, lastJson, stopStoreRuntime } from './cliRunner';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { forkBranches, initRepo, worktreePaths } from './gitRepo';
import { canCreateUsers, createLocalUser, runAs } from './localUsers';
import type { LocalUser } from './localUsers';
import { say } from './script';

describe('cli: worktrees\' folder made by another local user', function () {
  this.timeout(30_000);
  let other: LocalUser;
  let fake: FakeAnthropic;
  let base: string;
  let store: string;
  let repo: string;

  const cli = cliRunner({ apiKey: 'k-wt', baseUrl: () => fake.url, store: () => store });

  before(function () {
    if (!canCreateUsers()) {
      console.log('    skipped: creating a second local user needs root (useradd); run these tests as root');
      this.skip();
    }
    other = createLocalUser('fawt');
  });
  after(() => other?.remove());
  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-wt' });
    fake.setResponder(r => (r.rawBody.includes('<fork-boilerplate>') ? say('Scope: fork.') : say('parent answer')));
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-wtowner-'));
    fs.chmodSync(base, 0o755); // the other user reaches the shared folder, as they reach /tmp
    store = path.join(base, 'store');
    const shared = path.join(base, 'shared');
    fs.mkdirSync(shared, { mode: 0o1777 });
    fs.chmodSync(shared, 0o1777);
    repo = path.join(shared, 'repo');
    fs.mkdirSync(repo);
    initRepo(repo, { 'a.txt': 'a\n' });
  });
  afterEach(async () => {
    stopStoreRuntime(store);
    await fake.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  async function forkThere(): Promise<{ code: number; stderr: string }> {
    const chat = await cli('chat', '--cwd', repo, '--json', 'hello');
    assert.equal(chat.code, 0, chat.stderr);
    return cli('fork', '--cwd', repo, '--session', lastJson(chat).sessionId, '--approval', 'auto-edit', '--wait', 'look around');
  }

  for (const made of ['.fork-agents-worktrees', '.fork-agents-worktrees/repo']) {
    it(`refuses a fork when the other user made ${made}, and creates nothing in it`, async () => {
      const theirs = path.join(path.dirname(repo), made);
      await runAs(other, `const fs = require('node:fs'); fs.mkdirSync(process.argv[1], { recursive: true, mode: 0o777 }); fs.chmodSync(process.argv[1], 0o777)`, [theirs]);
      const fork = await forkThere();
      assert.notEqual(fork.code, 0, 'the fork is refused');
      assert.match(fork.stderr, /belongs to another user .*no fork is created there/);
      assert.deepEqual(forkBranches(repo), []);
      assert.equal(worktreePaths(repo).length, 1, 'only the main working tree');
      const root = path.join(path.dirname(repo), '.fork-agents-worktrees', 'repo');
      assert.deepEqual(fs.existsSync(root) ? fs.readdirSync(root) : [], [], 'no worktree folder');
    });
  }

  it('forks as usual when the worktrees\' folder is the user\'s own', async () => {
    const fork = await forkThere();
    assert.equal(fork.code, 0, fork.stderr);
    assert.equal(forkBranches(repo).length, 1);
  });
});
