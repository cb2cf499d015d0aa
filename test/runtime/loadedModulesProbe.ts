// Preloaded into a test's runtime (NODE_OPTIONS=--require): on SIGUSR2 it writes what the process has loaded —
// Node's built-in modules and the files in require.cache — to FORK_AGENTS_TEST_PROBE_OUT, written aside and
// renamed into place so a reader never sees half of it. Test-only: the runtime itself has no such call.
import * as fs from 'node:fs';

export interface LoadedModules { builtins: string[]; files: string[] }

const out = process.env.FORK_AGENTS_TEST_PROBE_OUT;
if (out && /runtime\.js$/.test(process.argv[1] ?? '')) {
  process.on('SIGUSR2', () => {
    const moduleLoadList = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
    const loaded: LoadedModules = {
      builtins: moduleLoadList.filter(name => name.startsWith('NativeModule ')).map(name => name.slice('NativeModule '.length)),
      files: Object.keys(require.cache),
    };
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(loaded));
    fs.renameSync(`${out}.tmp`, out);
  });
}
