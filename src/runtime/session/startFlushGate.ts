// A hold on the start journal's flush that a test sets from outside the runtime (FORK_AGENTS_START_FLUSH_GATE
// names a file): each flush waits until the file exists, so a test can see what a fork does — and does not
// do — while it is started but not yet durable against a power loss; a file that says "fail" fails the
// flush as a disk's EIO would. A flush held says so with `<file>.held`, so the test waits on that, not on
// time. The test puts the gate file in place whole (a rename), so it is never read half written. Unset in
// use: nothing waits.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function startFlushGate(file: string): () => Promise<void> {
  return () => new Promise<void>((resolve, reject) => {
    let settled = false;
    const check = () => {
      if (settled) return true;
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        return false;
      }
      settled = true;
      watcher.close();
      if (text.trim() === 'fail') reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      else resolve();
      return true;
    };
    const watcher = fs.watch(path.dirname(file), check);
    if (!check()) fs.writeFileSync(`${file}.held`, '');
  });
}
