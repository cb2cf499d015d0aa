// The layer rules are enforced by eslint (eslint.config.mjs, scripts/lint/layers.mjs; the lint stage of
// `npm test` runs it over the tree). Here the same config lints deliberate wrong imports, placed as files of
// each layer, and must fail each one, and lints the allowed ones without a word.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../../..');

async function problems(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.map(m => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

async function fails(file: string, code: string, message: RegExp): Promise<void> {
  const found = await problems(file, code);
  assert.ok(found.some(p => message.test(p)), `${file}: expected ${message}, got ${JSON.stringify(found)}`);
}

describe('layer boundaries (eslint)', function () {
  this.timeout(30_000);

  it('src/common imports neither vscode nor Node nor packages, nor any other folder', async () => {
    await fails('src/common/x.ts', "import * as fs from 'node:fs';", /src\/common may not import the package "node:fs"/);
    await fails('src/common/x.ts', "import type * as vscode from 'vscode';", /may not import the package "vscode"/);
    await fails('src/common/protocol/x.ts', "import { a } from '../../runtime/server';", /src\/common may not import src\/runtime\/server/);
  });

  it('the webview imports only src/common and itself', async () => {
    await fails('webview/x.ts', "import { a } from '../src/host/panel/forksView';", /webview may not import src\/host\/panel\/forksView/);
    await fails('webview/x.ts', "import MarkdownIt from 'markdown-it';", /webview may not import the package "markdown-it"/);
    assert.deepEqual(await problems('webview/x.ts', "import type { ForkSummary } from '../src/common/forks';\nimport { el } from './dom';\nexport const y = [el];\nexport type Z = ForkSummary;\n"), []);
  });

  it('only src/runtime/model imports the Anthropic SDKs', async () => {
    await fails('src/runtime/agent/x.ts', "import Anthropic from '@anthropic-ai/sdk';", /src\/runtime may not import the package "@anthropic-ai\/sdk"/);
    await fails('src/host/x.ts', "import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';", /src\/host may not import the package "@anthropic-ai\/vertex-sdk"/);
    assert.deepEqual(await problems('src/runtime/model/x.ts', "import Anthropic from '@anthropic-ai/sdk';\nexport const a = Anthropic;\n"), []);
  });

  it('the runtime imports neither the host nor vscode; the host does not import the runtime', async () => {
    await fails('src/runtime/fork/x.ts', "import { a } from '../../host/modelAccess';", /src\/runtime may not import src\/host\/modelAccess/);
    await fails('src/runtime/x.ts', "const v = require('vscode');", /may not import the package "vscode"/);
    await fails('src/host/x.ts', "import { startServer } from '../runtime/server';", /src\/host may not import src\/runtime\/server/);
    await fails('src/cli/x.ts', "export { a } from '../runtime/fork/forkManager';", /src\/cli may not import src\/runtime\/fork\/forkManager/);
  });

  it('src/ipc imports no runtime, host or client code', async () => {
    await fails('src/ipc/x.ts', "import { a } from '../runtime/server';", /src\/ipc may not import src\/runtime\/server/);
    await fails('src/ipc/x.ts', "type T = import('../host/runtimeApi').RuntimeApi;", /src\/ipc may not import src\/host\/runtimeApi/);
  });

  it('no default exports in src', async () => {
    await fails('src/runtime/tools/x.ts', 'export default function tool() {}', /Named exports only/);
  });
});
