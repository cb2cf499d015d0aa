// The CLI's approval prompt, on a real terminal (a pty from script(1)), shows the whole command
// with its control characters escaped, so a newline or a carriage return cannot hide part of it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { runOnTerminal, stopStoreRuntime } from './cliRunner';
import { call, say } from './script';


describe('runtime: the CLI approval prompt shows the whole command', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  let store: string;
  let work: string;

  // script(1) (util-linux, in Debian's essential bsdutils) gives the CLI a pty. Without it these checks fail
  // with that reason instead of skipping: a skipped suite would read as passing.
  before(() => {
    assert.equal(spawnSync('script', ['--version']).status, 0, 'script(1) is not installed, so there is no pty to run the CLI on (Debian: apt-get install bsdutils)');
  });
  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k-cli' });
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fa-cli-pty-'));
    store = path.join(base, 'store');
    work = path.join(base, 'work');
    fs.mkdirSync(work);
  });
  afterEach(async () => {
    stopStoreRuntime(store);
    await fake.close();
  });

  it('shows the whole multi-line command, \\r and ANSI escapes escaped, and a "n" denies it', async () => {
    const command = 'echo tests passed\ntouch x\rrm -rf ~/important \x1b[2K\x1b[1Aecho harmless';
    fake.enqueue(call(['bash', { command }]), say('ok'));
    const { code, output, answered } = await runOnTerminal(['chat', '--cwd', work, '--approval', 'ask', 'run the tests'],
      { ANTHROPIC_API_KEY: 'k-cli', ANTHROPIC_BASE_URL: fake.url, FORK_AGENTS_HOME: store }, 'n');
    assert.ok(answered, `the CLI asked: ${JSON.stringify(output)}`);
    assert.ok(output.includes('command: echo tests passed\\ntouch x\\rrm -rf ~/important \\e[2K\\e[1Aecho harmless'),
      `the whole command, escaped: ${JSON.stringify(output)}`);
    assert.ok(!output.includes('x\rrm') && !output.includes('\x1b[1Aecho'), 'none of the raw control characters reached the terminal');
    assert.ok(!fs.existsSync(path.join(work, 'x')), 'denied: nothing ran');
    assert.equal(code, 0);
  });
});
