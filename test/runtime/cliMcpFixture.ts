// What the CLI's MCP tests each start from: a fake model with its own key, a temp folder holding the store
// and the user's config folder (XDG_CONFIG_HOME points there, so ~/.config/fork-agents/mcp.json is the
// test's), and the CLI run against both. Registers its beforeEach / afterEach; call it inside `describe`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeAnthropic } from '../fakes/anthropicServer';
import type { FakeAnthropic } from '../fakes/anthropicServer';
import { cliRunner, stopStoreRuntime } from './cliRunner';
import type { CliRun } from './cliRunner';

export interface CliMcpFixture {
  /** The fake model of the current test. */
  readonly fake: FakeAnthropic;
  /** The current test's temp folder: `store/`, `config/` and whatever the test adds. */
  readonly base: string;
  readonly store: string;
  /** `$XDG_CONFIG_HOME/fork-agents/mcp.json`: the user's own MCP file. */
  readonly userFile: string;
  cli(...args: string[]): Promise<CliRun>;
}

export function cliMcpFixture(tempPrefix: string, apiKey: string): CliMcpFixture {
  let fake: FakeAnthropic | undefined;
  let base = '';
  let savedXdg: string | undefined;
  const store = () => path.join(base, 'store');
  const cli = cliRunner({ apiKey, baseUrl: () => fixture.fake.url, store });

  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey });
    base = fs.mkdtempSync(path.join(os.tmpdir(), tempPrefix));
    savedXdg = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = path.join(base, 'config');
  });
  afterEach(async () => {
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
    stopStoreRuntime(store());
    await fake?.close();
    fake = undefined;
  });

  const fixture: CliMcpFixture = {
    get fake() {
      if (!fake) throw new Error('the CLI MCP fixture runs only inside a test');
      return fake;
    },
    get base() {
      return base;
    },
    get store() {
      return store();
    },
    get userFile() {
      return path.join(base, 'config', 'fork-agents', 'mcp.json');
    },
    cli,
  };
  return fixture;
}
