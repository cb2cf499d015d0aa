// Section 2: heap added per extra fork of a ~5 MB parent. Forks are kept alive (the store keeps opened
// sessions in its map, as the runtime does). Also measured: the parent itself, and forks revived from
// disk after a runtime restart (ForkManager.loadAll → SessionStore.get replays each bootstrap record).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createForkSession } from '../../src/runtime/fork/history/createFork';
import type { Session } from '../../src/runtime/session/session';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { DIRECTIVE } from './forkStart';
import { buildParent } from './transcriptGen';
import type { BenchContext, Row, Section } from './types';
import { kb, mb, round, thousands } from './stats';

const PARENT_BYTES = 5 * 1024 * 1024;
const FORKS = 20;
const TARGET_BYTES = 1024 * 1024;
const REVIVED_TARGET_BYTES = 100 * 1024;

/** heapUsed after a full collection (twice: the first may leave finalizer garbage). */
function settledHeap(ctx: BenchContext): number {
  ctx.gc();
  ctx.gc();
  return process.memoryUsage().heapUsed;
}

export const forkHeapSection: Section = {
  id: '2',
  title: `Heap per extra fork of a ${mb(PARENT_BYTES)} parent (turns=all, ${FORKS} forks kept alive)`,
  async run(ctx) {
    // The store's medium does not change the heap; tmpfs only makes building the parent faster.
    const dir = ctx.memTempDir('fork-heap-') ?? ctx.tempDir('fork-heap-');
    const root = path.join(dir, 'work');
    fs.mkdirSync(root);
    const storeDir = path.join(dir, 'store');
    const store = new SessionStore(storeDir);
    const parent = await buildParent(store, root, { bytes: PARENT_BYTES, seed: 5 });
    ctx.log(`  parent of ${thousands(parent.entries)} entries: ${mb(parent.bytes)} JSONL, built in ${parent.buildSeconds.toFixed(1)} s`);

    // Live forks, created by the running runtime: inherited entries are shared with the parent.
    const forks: Session[] = [];
    const before = settledHeap(ctx);
    for (let i = 0; i < FORKS; i++) {
      const fork = createForkSession(store, { parent: parent.session, kind: 'fork', directive: `${DIRECTIVE} (#${i})`, turns: 'all', isolation: 'shared', origin: 'user', name: `heap fork ${i}` });
      // A fork builds its list of entries on first use (its first request): count it, as a running fork holds it.
      fork.entries();
      forks.push(fork);
    }
    const after = settledHeap(ctx);
    const perFork = (after - before) / FORKS;
    const forkFileBytes = fs.statSync(store.fileOf(forks[0].id)).size;
    const ids = forks.map(f => f.id);
    store.closeAll();

    // The parent alone, loaded from disk into a fresh store: the scale the per-fork numbers compare to.
    const parentStore = new SessionStore(storeDir);
    const beforeParent = settledHeap(ctx);
    const loadedParent = await parentStore.get(parent.session.id);
    const parentHeap = settledHeap(ctx) - beforeParent;

    // After a runtime restart: forks revived from their bootstraps, whose inherited history is named by
    // segment. With the parent open in the same store they share its entries (each segment still read and
    // checked against its hash once).
    const beforeRevived = settledHeap(ctx);
    const revived: Session[] = [];
    for (const id of ids) revived.push(await parentStore.get(id));
    const perRevived = (settledHeap(ctx) - beforeRevived) / FORKS;
    // Without the parent (ForkManager.loadAll at start-up loads forks only): the first fork reads the
    // segments, the others share them.
    const coldStore = new SessionStore(storeDir);
    const beforeCold = settledHeap(ctx);
    const cold: Session[] = [];
    for (const id of ids) cold.push(await coldStore.get(id));
    const perCold = (settledHeap(ctx) - beforeCold) / FORKS;
    // The anchors' approach: every fork holds its own deep copy of the history.
    const beforeClones = settledHeap(ctx);
    const clones = [0, 1, 2].map(() => structuredClone(loadedParent.entries()));
    const perClone = (settledHeap(ctx) - beforeClones) / clones.length;
    const alive = forks.length + revived.length + cold.length + clones.length + loadedParent.entries().length; // keeps every measured object reachable
    parentStore.closeAll();
    coldStore.closeAll();

    const rows: Row[] = [
      {
        label: `heap per extra fork, live (createForkSession)`,
        result: `${kb(perFork)} per fork (heapUsed ${mb(before)} → ${mb(after)} for ${FORKS} forks)`,
        target: '< 1 MB per fork',
        verdict: perFork < TARGET_BYTES ? 'PASS' : 'MISS',
        values: { forks: FORKS, heapBeforeBytes: before, heapAfterBytes: after, perForkBytes: Math.round(perFork) },
      },
      {
        label: 'heap of the parent itself (loaded from disk)',
        result: `${mb(parentHeap)} for ${thousands(parent.entries)} entries, ${mb(parent.bytes)} JSONL`,
        verdict: 'info',
        values: { parentHeapBytes: parentHeap, parentEntries: parent.entries, parentJsonlBytes: parent.bytes },
      },
      {
        label: 'heap per fork revived from disk, parent open (runtime restart: store.get)',
        result: `${kb(perRevived)} per fork (${FORKS} fork files of ${kb(forkFileBytes)} each); anchors (a structuredClone per fork) ${mb(perClone)} per fork`,
        target: '< 100 KB per fork',
        verdict: perRevived < REVIVED_TARGET_BYTES ? 'PASS' : 'MISS',
        values: { forks: FORKS, perForkBytes: Math.round(perRevived), forkFileBytes, anchorPerForkBytes: Math.round(perClone) },
      },
      {
        label: 'heap per fork revived from disk, parent not open (start-up loads forks only)',
        result: `${kb(perCold)} per fork on average: the first reads the shared segments, the other ${FORKS - 1} share them`,
        verdict: 'info',
        values: { forks: FORKS, perForkBytes: Math.round(perCold) },
      },
    ];
    return {
      rows,
      details: { parentEntries: parent.entries, parentRealTurns: parent.realTurns, parentJsonlBytes: parent.bytes, parentBuildSeconds: round(parent.buildSeconds, 2), objectsKeptAlive: alive },
      notes: [
        'heapUsed after two forced GCs (node --expose-gc); fork objects stay referenced until measured.',
        'each fork file names its inherited history by sealed segment (hash + position ranges) plus a bounded unsealed tail.',
      ],
    };
  },
};
