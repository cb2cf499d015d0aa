// mocha root hook plugin (`--require out/test/e2e/sharedWorkbench.js`): the UI checks of one run share one
// chromium (scripts/e2e/shared.ts), closed after the last file. Under mocha --parallel (npm test) root hooks
// run around each file in its worker (mochajs/mocha#4308), so there each file gets a chromium of its own.
import { closeSharedWorkbench, shareWorkbench } from '../../scripts/e2e/shared';

export const mochaHooks = {
  beforeAll(): void {
    shareWorkbench();
  },
  async afterAll(): Promise<void> {
    await closeSharedWorkbench();
  },
};
