// mocha root hook plugin (`--require out/test/e2e/sharedWorkbench.js`): the UI checks of one run share one
// chromium (scripts/e2e/shared.ts), closed after the last file.
import { closeSharedWorkbench, shareWorkbench } from '../../scripts/e2e/shared';

export const mochaHooks = {
  beforeAll(): void {
    shareWorkbench();
  },
  async afterAll(): Promise<void> {
    await closeSharedWorkbench();
  },
};
