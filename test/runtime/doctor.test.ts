// fork-agents doctor from outside: stores made by the real runtime, damaged the way the probe damaged
// them (a tool_results line cut to 200 characters plus garbage, a torn fork launch record, modes opened up,
// leftovers of a kill), then the built CLI checks them, repairs them, and the runtime uses them again.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliRunner, jsonLines } from './cliRunner';
import type { CliRun } from './cliRunner';
import { V1_CHAT, copyV1Store } from './v1Store';
import { killRuntime, startHarness } from './harness';
import type { Harness } from './harness';
import { call, say } from './script';
import { damageTools } from './damage';

interface Finding { type: 'finding'; check: string; subject: string; status: 'problem' | 'repaired' | 'note'; found: string; did?: string }
interface Result { type: 'result'; store: string; repair: boolean; liveRuntime: number | null; checked: Record<string, number>; problems: number; repaired: number; notes: number; exitCode: number }

describe('cli: fork-agents doctor', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const doctor = cliRunner({ apiKey: 'unused', baseUrl: () => 'http://127.0.0.1:9', store: () => h.storeDir });
  const { sessionFile, readExchange, damageToolResults, damageLaunchRecord, lastToolResults } = damageTools(() => h);
  /** The --json lines of a run: the findings, then the result (checked for its shape on every run). */
  const parse = (run: CliRun) => {
    const lines = jsonLines(run) as (Finding | Result)[];
    const result = lines.at(-1) as Result;
    assert.equal(result.type, 'result', run.stdout + run.stderr);
    assert.equal(result.exitCode, run.code, 'the result names the exit code');
    const findings = lines.slice(0, -1) as Finding[];
    for (const f of findings) {
      assert.equal(f.type, 'finding');
      assert.deepEqual(Object.keys(f).filter(k => k !== 'did').sort(), ['check', 'found', 'status', 'subject', 'type']);
      assert.ok(['problem', 'repaired', 'note'].includes(f.status));
    }
    assert.equal(result.problems, findings.filter(f => f.status === 'problem').length);
    assert.equal(result.repaired, findings.filter(f => f.status === 'repaired').length);
    return { findings, result };
  };
  it('a damaged tool_results line: reported, then repaired by a record after it (append-only); the runtime then needs no mending', async () => {
    h = await startHarness();
    const sessionId = await readExchange();
    await killRuntime(h.runtimePid());
    const line = damageToolResults(sessionId);
    const damaged = fs.readFileSync(sessionFile(sessionId));

    const check = await doctor('doctor', '--json');
    assert.equal(check.code, 3, 'problems remain');
    const found = parse(check).findings.find(f => f.subject === sessionId)!;
    assert.equal(found.status, 'problem');
    assert.match(found.found, new RegExp(`line ${line} of the transcript was damaged and its record is lost; 1 call\\(s\\) without a result got an error result`));
    assert.equal(found.did, 'nothing (run with --repair)');
    assert.deepEqual(fs.readFileSync(sessionFile(sessionId)), damaged, 'checking changed nothing');

    const repair = await doctor('doctor', '--repair', '--json');
    assert.equal(repair.code, 0, repair.stdout + repair.stderr);
    const repaired = parse(repair).findings.find(f => f.subject === sessionId)!;
    assert.equal(repaired.status, 'repaired');
    assert.match(repaired.did!, new RegExp(`wrote a repair record after line\\(s\\) ${line}`));
    const after = fs.readFileSync(sessionFile(sessionId));
    assert.deepEqual(after.subarray(0, damaged.length), damaged, 'the file was only appended to');
    const added = jsonLines(after.subarray(damaged.length).toString('utf8'));
    assert.deepEqual(added.map(r => r.type), ['repair']);
    assert.deepEqual(added[0].lines, [line]);

    const again = await doctor('doctor', '--json');
    assert.equal(again.code, 0, 'nothing left to repair');
    assert.match(parse(again).findings.find(f => f.subject === sessionId)?.found ?? '', /repaired/);

    await h.reconnect();
    h.fake.setResponder(() => say('still here'));
    const next = await h.send('and now?', { sessionId });
    assert.equal(next.stopReason, 'end_turn', 'the request is valid');
    const results = lastToolResults();
    assert.equal(results.length, 1);
    assert.match(String(results[0].content), new RegExp(`line ${line}\\) was damaged`), 'the closed call, as the repair wrote it');
    const chat = h.events.filter(e => e.sessionId === sessionId && e.event.type === 'text_delta').map(e => (e.event as { text: string }).text).join('');
    assert.doesNotMatch(chat, /Warning: line/, 'a repaired file is not reported as damaged again');
  });

  // Only a copied (v1) segment holds a second copy of a line: a store written before history was kept once.
  it('a damaged line a copied segment holds: the repair writes the recovered entry, which outlives the segment', async () => {
    h = await startHarness({ prepare: (storeDir, root) => copyV1Store(storeDir, root) });
    const sessionId = V1_CHAT;
    await killRuntime(h.runtimePid());
    const line = damageToolResults(sessionId);

    const check = await doctor('doctor', '--json');
    assert.equal(check.code, 3);
    assert.match(parse(check).findings.find(f => f.subject === sessionId)!.found, new RegExp(`line ${line} .*recovered from sealed segment`));
    const repair = await doctor('doctor', '--repair', '--json');
    assert.equal(repair.code, 0, repair.stdout + repair.stderr);
    // The transcript alone now holds the entry: the segment may go.
    for (const name of fs.readdirSync(path.join(h.storeDir, 'segments'))) fs.rmSync(path.join(h.storeDir, 'segments', name));

    await h.reconnect();
    h.fake.setResponder(() => say('still here'));
    assert.equal((await h.send('and now?', { sessionId })).stopReason, 'end_turn');
    const results = lastToolResults();
    assert.equal(results.length, 1);
    assert.match(JSON.stringify(results[0].content), /the notes say 42/, 'the original result, from the repair record');
  });

  it('a fork whose launch record is torn is listed as a problem no repair mends, its file left as it is', async () => {
    h = await startHarness();
    const { forkId, text: torn } = await damageLaunchRecord('torn');

    for (const args of [['doctor', '--json'], ['doctor', '--repair', '--json']]) {
      const run = await doctor(...args);
      assert.equal(run.code, 3, `${args.join(' ')}: the fork stays a problem`);
      const { findings, result } = parse(run);
      const listed = findings.find(f => f.subject === forkId)!;
      assert.equal(listed.check, 'fork');
      assert.equal(listed.status, 'problem');
      assert.match(listed.found, /launch record \(line 2 of its transcript\) is torn/);
      assert.match(listed.did!, new RegExp(`fork-agents delete --fork ${forkId}`));
      assert.equal(result.checked.forks, 1);
      assert.equal(fs.readFileSync(sessionFile(forkId), 'utf8'), torn, 'its file is left as it is');
    }
    const text = await doctor('doctor');
    assert.match(text.stdout, new RegExp(`problem  fork ${forkId}: its launch record \\(line 2 of its transcript\\) is torn`));
  });

  it('wrong store modes and a kill\'s leftovers are reported, then made private and removed', async () => {
    h = await startHarness();
    const { sessionId } = await h.send('hello');
    await killRuntime(h.runtimePid());
    const sessions = path.join(h.storeDir, 'sessions');
    fs.chmodSync(h.storeDir, 0o750);
    fs.chmodSync(sessions, 0o755);
    fs.chmodSync(sessionFile(sessionId), 0o644);
    const leftovers = [path.join(h.storeDir, 'segments', `.${'a'.repeat(64)}.4242.tmp`), path.join(h.storeDir, 'lock', '.claim-4242-9')];
    for (const file of leftovers) fs.writeFileSync(file, 'x', { mode: 0o600 });

    const check = await doctor('doctor', '--json');
    assert.equal(check.code, 3);
    const { findings } = parse(check);
    const modeOf = (subject: string) => findings.find(f => f.check === 'modes' && f.subject === subject)?.found;
    assert.match(modeOf(h.storeDir) ?? '', /^mode 0750: others can enter it \(want 0700\)/);
    assert.match(modeOf(sessions) ?? '', /^mode 0755/);
    assert.match(modeOf(sessionFile(sessionId)) ?? '', /^mode 0644: others can read it \(want 0600\)/);
    for (const file of leftovers) assert.equal(findings.find(f => f.subject === file)?.check, 'leftover', file);
    assert.equal(fs.statSync(sessions).mode & 0o777, 0o755, 'checking changed no mode');

    const repair = await doctor('doctor', '--repair', '--json');
    assert.equal(repair.code, 0, repair.stdout + repair.stderr);
    assert.equal(fs.statSync(h.storeDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(sessions).mode & 0o777, 0o700);
    assert.equal(fs.statSync(sessionFile(sessionId)).mode & 0o777, 0o600);
    for (const file of leftovers) assert.ok(!fs.existsSync(file), `${file} removed`);
    assert.equal((await doctor('doctor')).code, 0);
  });

  it('beside a live runtime: checking only reads and names it; --repair refuses (exit 4) and changes nothing', async () => {
    h = await startHarness();
    const { sessionId } = await h.send('hello');
    fs.chmodSync(path.join(h.storeDir, 'sessions'), 0o755);
    const before = fs.readFileSync(sessionFile(sessionId));

    const check = await doctor('doctor', '--json');
    assert.equal(parse(check).result.liveRuntime, h.runtimePid());
    const refused = await doctor('doctor', '--repair', '--json');
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, new RegExp(`a runtime \\(pid ${h.runtimePid()}\\) serves .*nothing was changed`));
    assert.equal(fs.statSync(path.join(h.storeDir, 'sessions')).mode & 0o777, 0o755);
    assert.deepEqual(fs.readFileSync(sessionFile(sessionId)), before);
    // The runtime still owns its store and serves it.
    h.fake.setResponder(() => say('fine'));
    assert.equal((await h.send('still there?', { sessionId })).stopReason, 'end_turn');
  });
});
