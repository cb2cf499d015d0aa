// Section siblings: fifty forks of one chat started together, in a runtime of their own that holds only
// that chat — so its RSS peak is the siblings' (in runtime-forks the same runtime holds a 60k-entry parent
// too). The chat is written before the runtime starts and then used as a user would: one turn, which loads
// it and builds its request, before the forks. Beside it, the anchors' approach in the same run: Qwen Code
// and Claude Code fork in one process by cloning the selected history, so a process that holds the parsed
// chat and fifty `structuredClone`s of it (its RSS peak, VmHWM).
// FORK_BENCH_SIBLING_PARENT: the chat's entries (default 1,000; the rows used 1,000).
import { execFileSync } from 'node:child_process';
import { SessionStore } from '../../src/runtime/session/sessionStore';
import { startRuntimeRunApart } from './runtimeDriver';
import { DIRECTIVE_PATTERN, nodeWithArgs, siblingRow } from './runtimeForks';
import type { Parent } from './runtimeForks';
import { mb, thousands } from './stats';
import { buildParent, recordLatestRequest } from './transcriptGen';
import type { Row, Section } from './types';
import { loadText, rssOf } from './processStats';

const SIBLINGS = [20, 50];
const ANCHOR_FORKS = 50;
const TARGET_RSS = 200 * 1024 * 1024;

function parentSize(): number {
  const n = Number(process.env.FORK_BENCH_SIBLING_PARENT);
  return Number.isInteger(n) && n >= 10 ? n : 1_000;
}

export const siblingsSection: Section = {
  id: 'siblings',
  title: 'Fifty siblings in a runtime of their own: start, delay, RSS peak; beside cloning the history in one process',
  async run(ctx) {
    const size = parentSize();
    let parent: Parent | undefined;
    const run = await startRuntimeRunApart(ctx, { answer: { content: [{ type: 'text', text: 'Done.' }] }, namePattern: DIRECTIVE_PATTERN }, {
      nodePath: nodeWithArgs(ctx.tempDir('node-'), process.env.FORK_BENCH_RUNTIME_NODE_ARGS),
      async prepare(storeDir, root) {
        const store = new SessionStore(storeDir);
        const built = await buildParent(store, root, { entries: size, seed: size });
        recordLatestRequest(built.session);
        ctx.log(`  parent of ${thousands(built.entries)} entries: ${mb(built.bytes)} JSONL`);
        parent = { size, id: built.session.id, file: store.fileOf(built.session.id), bytes: built.bytes, segmentBytes: 0 };
        built.session.close();
      },
    });
    try {
      const chat = parent!;
      const fresh = rssOf(run.pid());
      await run.send('One more question before the forks.', chat.id);
      const used = rssOf(run.pid());
      const rows: Row[] = [{
        label: `runtime holding the chat (${thousands(chat.size)} entries, ${mb(chat.bytes)}) after one turn`,
        result: `RSS ${mb(used.now)} (peak ${mb(used.peak)}; started: ${mb(fresh.now)}); ${loadText()}`,
        verdict: 'info',
        values: { entries: chat.size, parentBytes: chat.bytes, rssBytes: used.now, rssPeakBytes: used.peak, rssStartedBytes: fresh.now },
      }];
      for (const count of SIBLINGS) rows.push(await siblingRow(run, chat, count, true));
      rows.push(anchorRow(chat));
      return {
        rows,
        notes: [
          'The runtime serves nothing but this chat; RSS peak = its VmHWM (high-water mark since it started, the chat loaded and its turn included).',
          `anchor: a Node process that parses the chat's transcript and keeps ${ANCHOR_FORKS} structuredClones of its entries (the in-process forks of Qwen Code and Claude Code clone the selected history).`,
        ],
      };
    } finally {
      await run.dispose();
    }
  },
};

/** The anchors' approach in a process of its own: its RSS peak holding the chat and one clone per fork. */
function anchorRow(chat: Parent): Row {
  const script = `
    const fs = require('node:fs');
    const entries = [];
    for (const line of fs.readFileSync(process.argv[1], 'utf8').split('\\n')) {
      if (!line) continue;
      const record = JSON.parse(line);
      if (record.type === 'entry') entries.push(record.entry ?? record);
    }
    const forks = [];
    for (let i = 0; i < ${ANCHOR_FORKS}; i++) forks.push(structuredClone(entries));
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = name => Number(new RegExp('^' + name + ':\\\\s+(\\\\d+) kB', 'm').exec(status)[1]);
    process.stdout.write(JSON.stringify({ entries: entries.length, forks: forks.length, rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script, chat.file], { encoding: 'utf8', maxBuffer: 1 << 20 })) as { entries: number; rss: number; peak: number };
  const load = loadText();
  return {
    label: `anchor: ${ANCHOR_FORKS} clones of the chat's history in one process`,
    result: `RSS peak ${mb(out.peak)} (${thousands(out.entries)} entries each); ${load}`,
    target: `ours ≤ ${mb(TARGET_RSS)}`,
    verdict: 'info',
    values: { forks: ANCHOR_FORKS, entries: out.entries, rssBytes: out.rss, rssPeakBytes: out.peak, load },
  };
}
