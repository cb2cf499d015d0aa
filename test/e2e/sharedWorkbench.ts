// mocha root hook plugin (`--require out/test/e2e/sharedWorkbench.js`): the UI checks of one process share one
// chromium (scripts/e2e/shared.ts). Under mocha --parallel (npm test) root hooks run around each file in
// its worker (mochajs/mocha#4308) and a worker cannot tell its last file: there the chromium stays open
// from file to file and ends with the worker (mocha sets MOCHA_WORKER_ID in its workers). A serial run
// closes it after the last file.
import { closeSharedWorkbench, finishSharedFile, shareWorkbench } from '../../scripts/e2e/shared';

const inParallelWorker = process.env.MOCHA_WORKER_ID !== undefined;

export const mochaHooks = {
  beforeAll(): void {
    shareWorkbench();
  },
  async afterAll(): Promise<void> {
    if (inParallelWorker) await finishSharedFile();
    else await closeSharedWorkbench();
  },
};
