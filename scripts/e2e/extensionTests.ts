// Runs the extension-host mocha suite (out/test/extension/index.js) inside code-server's real Node
// extension host, through the smoke-test driver's URL payload, and exits with its result.
// Usage: node out/scripts/e2e/extensionTests.js [--timeout ms]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { openWorkbench } from './browser';
import type { Workbench } from './browser';
import { startStack } from './stack';
import type { Stack } from './stack';
import { requireE2eTools } from './tools';

/** Same as test/extension/index.ts (not imported: that module needs mocha's extension-host context). */
const REPORTER_MARK = '\u2063mocha\u2063 ';

export interface ExtensionTestResult {
  exitCode: number | 'timeout';
  screenshot?: string;
  logs: string[];
}

export async function runExtensionTests(timeoutMs: number): Promise<ExtensionTestResult> {
  const tools = requireE2eTools();
  const stack: Stack = await startStack({ tools, extension: 'develop', fake: true, label: 'ext-tests' });
  const results = path.join(stack.root, 'test-results');
  fs.mkdirSync(results, { recursive: true });
  const testsIndex = path.join(stack.root, 'out', 'test', 'extension', 'index.js');
  if (!fs.existsSync(testsIndex)) throw new Error(`${testsIndex} is missing: run node scripts/build-tests.mjs`);
  let workbench: Workbench | undefined;
  let outcome: ExtensionTestResult = { exitCode: 'timeout', logs: [] };
  let consoleOut: fs.WriteStream | undefined;
  try {
    const env = {
      ...stack.extensionEnv,
      FORK_E2E_WORKSPACE: stack.workspace.folder,
      FORK_E2E_RESULTS: results,
    };
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', stack.codeServer.remoteUri(stack.root)],
      ['extensionTestsPath', stack.codeServer.remoteUri(testsIndex)],
      ['extensionEnvironment', JSON.stringify(env)],
    ];
    // Everything the workbench logs goes to a file; only the suite's reporter lines are printed.
    const consoleLog = path.join(results, 'logs', 'extension-host-workbench-console.log');
    fs.mkdirSync(path.dirname(consoleLog), { recursive: true });
    consoleOut = fs.createWriteStream(consoleLog);
    let finish: (code: number | 'timeout') => void = () => undefined;
    const finished = new Promise<number | 'timeout'>(resolve => (finish = resolve));
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    workbench = await openWorkbench({
      chromium: tools.chromium,
      runDir: stack.runDir,
      url: stack.codeServer.workbenchUrl(stack.workspace.workspaceFile, payload),
      waitForWorkbench: false,
      beforeGoto: async page => {
        // The extension host's console (mocha's reporter) arrives here, as does the suite's result.
        await page.exposeFunction('codeAutomationLog', (level: string, args: unknown[]) => {
          const line = format(...(Array.isArray(args) ? args : [args]));
          consoleOut?.write(`[${level}] ${line}\n`);
          for (const part of line.split('\n')) {
            const at = part.indexOf(REPORTER_MARK);
            if (at >= 0) console.log(part.slice(at + REPORTER_MARK.length));
          }
        });
        await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
      },
    });
    workbench.page.on('crash', () => finish('timeout'));
    const exitCode = await finished;
    clearTimeout(timer);
    const screenshot = path.join(results, 'extension-host-suite.png');
    await workbench.page.screenshot({ path: screenshot }).catch(() => undefined);
    outcome = { exitCode, screenshot, logs: [] };
  } finally {
    consoleOut?.end();
    if (outcome.exitCode !== 0) outcome.logs = stack.collectLogs(path.join(results, 'logs', 'extension-host'));
    await workbench?.close();
    await stack.stop();
  }
  return outcome;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--timeout');
  const timeoutMs = at >= 0 ? Number(process.argv[at + 1]) : 240_000;
  const result = await runExtensionTests(timeoutMs);
  if (result.exitCode === 0) {
    console.log('extension-host suite: passed');
    process.exit(0);
  }
  console.error(
    result.exitCode === 'timeout'
      ? `extension-host suite: no result within ${timeoutMs} ms`
      : `extension-host suite: failed (exit ${result.exitCode})`,
  );
  if (result.screenshot) console.error(`  screenshot: ${result.screenshot}`);
  // The logs that usually explain a failure; the rest sit next to them.
  const key = result.logs.filter(log => /(code-server|runtime|remoteexthost|Fork Agents|fake-anthropic-\d+)\.log$/.test(log));
  for (const log of key) console.error(`  log: ${log}`);
  if (result.logs.length > key.length) console.error(`  (${result.logs.length - key.length} more logs in ${path.join(path.dirname(result.screenshot ?? '.'), 'logs')})`);
  process.exit(1);
}

if (require.main === module) {
  main().catch(error => {
    console.error(`extension-host suite: could not run: ${(error as Error).stack ?? error}`);
    process.exit(1);
  });
}
