// The CLI's approval prompt, on a real terminal (a pty from script(1)), shows the whole command
// with its control characters escaped, so a newline or a carriage return cannot hide part of it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOnTerminal } from './cliRunner';
import { useCliStore } from './cliStore';
import { call, say } from './script';

describe('runtime: the CLI approval prompt shows the whole command', function () {
  this.timeout(60_000);
  const cliStore = useCliStore({ apiKey: 'k-cli', prefix: 'fa-cli-pty-', terminal: true });

  it('shows the whole multi-line command, \\r and ANSI escapes escaped, and a "n" denies it', async () => {
    const command = 'echo tests passed\ntouch x\rrm -rf ~/important \x1b[2K\x1b[1Aecho harmless';
    cliStore.fake.enqueue(call(['bash', { command }]), say('ok'));
    const { code, output, answered } = await runOnTerminal(['chat', '--cwd', cliStore.work, '--approval', 'ask', 'run the tests'],
      cliStore.terminalEnv(), 'n');
    assert.ok(answered, `the CLI asked: ${JSON.stringify(output)}`);
    assert.ok(output.includes('command: echo tests passed\\ntouch x\\rrm -rf ~/important \\e[2K\\e[1Aecho harmless'),
      `the whole command, escaped: ${JSON.stringify(output)}`);
    assert.ok(!output.includes('x\rrm') && !output.includes('\x1b[1Aecho'), 'none of the raw control characters reached the terminal');
    assert.ok(!fs.existsSync(path.join(cliStore.work, 'x')), 'denied: nothing ran');
    assert.equal(code, 0);
  });
});
