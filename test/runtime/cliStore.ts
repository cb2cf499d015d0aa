// What each CLI test runs against: a fake model server and a new temp folder holding the store and an
// empty work folder, made before each test and gone after it (the store's runtime stopped, the server closed).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { cliRunner, stopStoreRuntime } from './cliRunner';
import type { CliRun } from './cliRunner';

export interface CliStoreOptions {
  /** The key the fake server takes and the CLI sends. */
  apiKey: string;
  /** The temp folder's name prefix. */
  prefix: string;
  /** More environment for each run. */
  extra?: () => NodeJS.ProcessEnv;
  /** The tests run the CLI on a pty (runOnTerminal), so script(1) must be installed. */
  terminal?: boolean;
}

/** The current test's server and folders; read inside a test or a hook only. */
export interface CliStore {
  readonly fake: FakeAnthropic;
  /** The temp folder (its real path), holding `store` and `work`. */
  readonly base: string;
  readonly store: string;
  /** An empty folder to run the CLI in. */
  readonly work: string;
  /** Runs the built CLI against this store and server. */
  readonly cli: (...args: string[]) => Promise<CliRun>;
  /** The environment runOnTerminal needs for the same store and server. */
  terminalEnv(): NodeJS.ProcessEnv;
}

/** Registers the hooks in the describe block it is called in. */
export function useCliStore({ apiKey, prefix, extra, terminal = false }: CliStoreOptions): CliStore {
  let current: { fake: FakeAnthropic; base: string } | undefined;
  const now = () => {
    if (!current) throw new Error('the CLI store exists only inside a test');
    return current;
  };
  const fixture: CliStore = {
    get fake() { return now().fake; },
    get base() { return now().base; },
    get store() { return path.join(now().base, 'store'); },
    get work() { return path.join(now().base, 'work'); },
    cli: cliRunner({ apiKey, baseUrl: () => now().fake.url, store: () => fixture.store, extra }),
    terminalEnv: () => ({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: now().fake.url, FORK_AGENTS_HOME: fixture.store, ...extra?.() }),
  };
  if (terminal) {
    // script(1) (util-linux, in Debian's essential bsdutils) gives the CLI a pty. Without it these checks fail
    // with that reason instead of skipping: a skipped suite would read as passing.
    before(() => {
      assert.equal(spawnSync('script', ['--version']).status, 0, 'script(1) is not installed, so there is no pty to run the CLI on (Debian: apt-get install bsdutils)');
    });
  }
  beforeEach(async () => {
    const fake = await startFakeAnthropic({ apiKey });
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    fs.mkdirSync(path.join(base, 'work'));
    current = { fake, base };
  });
  afterEach(async () => {
    if (!current) return;
    stopStoreRuntime(fixture.store);
    await current.fake.close();
    current = undefined;
  });
  return fixture;
}
