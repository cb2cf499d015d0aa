import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionStore } from '../src/runtime/session/sessionStore';
import { buildParent } from '../test/bench/transcriptGen';
import { buildRequestBody } from '../src/runtime/agent/request';
import { requestBytes } from '../src/runtime/model/requestBytes';
import { fingerprint } from '../src/runtime/cache/fingerprint';
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'micro-'));
  const store = new SessionStore(path.join(dir, 'store'));
  const size = Number(process.argv[2] ?? 1000);
  const built = await buildParent(store, dir, { entries: size, seed: 1 });
  const s = built.session;
  const entries = s.entries();
  console.log('frozen entries', entries.filter(e => Object.isFrozen(e.message)).length, entries.length);
  for (let round = 0; round < 12; round++) {
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; let t = cpu();
    const body = buildRequestBody(s.header, entries);
    const tb = cpu() - t; t = cpu();
    const bytes = requestBytes({ ...body, stream: true });
    const tr = cpu() - t; t = cpu();
    const plain = Buffer.from(JSON.stringify({ ...body, stream: true }));
    const tp = cpu() - t; t = cpu();
    fingerprint(body, Date.now(), { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, undefined);
    const tf = cpu() - t;
    console.log(`build ${tb.toFixed(2)} bytes ${tr.toFixed(2)} plain ${tp.toFixed(2)} fp ${tf.toFixed(2)} equal ${bytes.equals(plain)} ${bytes.length} msgs ${body.messages.length} frozenMsgs ${body.messages.filter(m=>Object.isFrozen(m)).length}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
main();
