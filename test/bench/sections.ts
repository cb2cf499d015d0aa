// The benchmark's sections, in the order they run and print. To add one, write a module exporting a
// `Section` and append it here; main.ts, the table and bench.json pick it up with no other change.
import { cacheShareSection } from './cacheShare';
import { checkpointsSection } from './checkpoints';
import { coldStartSection } from './coldStart';
import { forkConcurrencySection } from './forkConcurrency';
import { forkEngineSection } from './forkEngine';
import { forkHeapSection } from './forkHeap';
import { forkStartSection } from './forkStart';
import { panelLoadSection } from './panelLoad';
import { runtimeForksSection } from './runtimeForks';
import { sandboxSection } from './sandbox';
import { sharedHistorySection } from './sharedHistory';
import { siblingsSection } from './siblings';
import { thinkingForkSection } from './thinkingFork';
import { tournamentSection } from './tournament';
import { tournamentLoadSection } from './tournamentLoad';
import type { Section } from './types';
import { worktreeSection } from './worktree';
import { worktreePrepSection } from './worktreePrep';

export const SECTIONS: readonly Section[] = [
  forkStartSection,
  forkHeapSection,
  cacheShareSection,
  forkEngineSection,
  panelLoadSection,
  worktreeSection,
  worktreePrepSection,
  sharedHistorySection,
  checkpointsSection,
  sandboxSection,
  tournamentSection,
  tournamentLoadSection,
  thinkingForkSection,
  runtimeForksSection,
  siblingsSection,
  forkConcurrencySection,
  coldStartSection,
];
