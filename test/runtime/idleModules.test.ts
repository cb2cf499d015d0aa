// What a runtime holds once idle, as a started runtime reports it (a test-only preload, loadedModulesProbe.ts):
// start-up loads no model client, and the first answer from the Anthropic API loads dist/lazy/model.js but
// never Node's bundled undici (its fetch, Headers, llhttp WebAssembly and http2), which would stay in the
// runtime's RSS for its life (model/nodeFetch.ts, model/fetchHeaders.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHarness } from './harness';
import type { Harness } from './harness';
import type { LoadedModules } from './loadedModulesProbe';
import { say } from './script';

const PROBE = path.resolve(__dirname, 'loadedModulesProbe.js');
const MODEL_BUNDLE = path.resolve(__dirname, '../../../dist/lazy/model.js');
/** Node's built-in modules a first answer over the Anthropic API must not load: Node's fetch and what it brings. */
const NODE_FETCH = ['internal/deps/undici/undici', 'http2'];

describe('runtime: what an idle runtime has loaded', function () {
  this.timeout(30_000);
  let h: Harness;
  let out: string;

  beforeEach(async () => {
    out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fa-probe-')), 'loaded.json');
    h = await startHarness({ runtimeEnv: { NODE_OPTIONS: `--require ${PROBE}`, FORK_AGENTS_TEST_PROBE_OUT: out } });
  });
  afterEach(() => h.dispose());

  /** Asks the runtime's probe and waits for its answer file to appear. */
  async function loaded(): Promise<LoadedModules> {
    fs.rmSync(out, { force: true });
    const dir = path.dirname(out);
    const written = new Promise<void>(resolve => {
      const watcher = fs.watch(dir, () => {
        if (!fs.existsSync(out)) return;
        watcher.close();
        resolve();
      });
    });
    process.kill(h.runtimePid(), 'SIGUSR2');
    await written;
    return JSON.parse(fs.readFileSync(out, 'utf8')) as LoadedModules;
  }

  it('start-up loads no model client; the first answer loads dist/lazy/model.js and answers, without Node\'s fetch', async () => {
    const idle = await loaded();
    assert.ok(!idle.files.includes(MODEL_BUNDLE), `loaded at start-up: ${idle.files.join(', ')}`);
    for (const name of NODE_FETCH) assert.ok(!idle.builtins.includes(name), `${name} is loaded at start-up`);

    h.fake.enqueue(say('Hello from the fake.'));
    const result = await h.send('Say hello.');
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    assert.equal(result.text, 'Hello from the fake.');
    const streamed = h.events.filter(e => e.event.type === 'text_delta').map(e => (e.event as { text: string }).text).join('');
    assert.equal(streamed, 'Hello from the fake.');
    assert.equal(h.fake.requests.length, 1);
    const sent = h.fake.requests[0];
    assert.equal(sent.headers['content-length'], String(Buffer.byteLength(sent.rawBody)), 'the body went whole, with its length');
    assert.equal(sent.headers['transfer-encoding'], undefined);

    const answered = await loaded();
    assert.ok(answered.files.includes(MODEL_BUNDLE), `the model client was loaded: ${answered.files.join(', ')}`);
    for (const name of NODE_FETCH) assert.ok(!answered.builtins.includes(name), `${name} was loaded by the first answer`);
    assert.ok(!answered.builtins.includes('https') && !answered.builtins.includes('tls'), 'an http endpoint loads no TLS');
  });
});
