// Entry of the extension-host suite: VS Code (code-server here, @vscode/test-electron elsewhere) loads
// this file inside the real extension host and awaits run().
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

/**
 * Marks the reporter's lines: in code-server they reach the harness mixed with the workbench's own log
 * (codeAutomationLog), and the harness prints only these. Keep in sync with scripts/e2e/extensionTests.ts.
 */
export const REPORTER_MARK = '\u2063mocha\u2063 ';

export function run(): Promise<void> {
  const base = Mocha.reporters.Base;
  const original = base.consoleLog;
  base.consoleLog = (...data: unknown[]) => console.log(format(...data).split('\n').map(line => REPORTER_MARK + line).join('\n'));
  const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, forbidOnly: true, reporter: 'spec' });
  const files = fs.readdirSync(__dirname).filter(name => name.endsWith('.test.js')).sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js in ${__dirname}`));
  for (const file of files) mocha.addFile(path.join(__dirname, file));
  return new Promise<void>((resolve, reject) => {
    mocha.run(failures => (failures > 0 ? reject(new Error(`${failures} extension-host test(s) failed`)) : resolve()));
  }).finally(() => {
    base.consoleLog = original;
  });
}
