// The same extension-host suite on desktop VS Code through @vscode/test-electron, for machines that can
// download VS Code. Not used in this sandbox (no internet): there `npm test` runs the suite in code-server.
// Usage: node esbuild.mjs && node scripts/build-tests.mjs && node out/test/extension/runElectron.js
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { startFakeAnthropic } from '../../scripts/e2e/fakeAnthropic';
import { stopRuntimesFor } from '../../scripts/e2e/processes';
import { DEMO_API_KEY } from '../../scripts/e2e/stack';
import { prepareWorkspace } from '../../scripts/e2e/workspace';

async function main(): Promise<void> {
  const repo = path.resolve(__dirname, '..', '..', '..');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fork-agents-electron-'));
  const storeDir = path.join(runDir, 'store');
  const fake = await startFakeAnthropic({ repoRoot: repo, logDir: runDir, apiKey: DEMO_API_KEY });
  try {
    const workspace = prepareWorkspace(path.join(repo, 'test', 'sample-workspace'), runDir);
    await runTests({
      extensionDevelopmentPath: repo,
      extensionTestsPath: path.join(repo, 'out', 'test', 'extension', 'index.js'),
      launchArgs: [workspace.workspaceFile, '--disable-extensions', '--disable-workspace-trust'],
      extensionTestsEnv: {
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: fake.apiKey,
        FORK_AGENTS_STORE: storeDir,
        FORK_E2E_WORKSPACE: workspace.folder,
      },
    });
  } finally {
    await fake.stop();
    stopRuntimesFor(storeDir);
  }
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
