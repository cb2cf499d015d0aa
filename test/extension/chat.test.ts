// A chat request to @fork in the real Chat view runs a real agent turn in the runtime (against the
// fake Anthropic server's demo model) and leaves a transcript with the tool calls and the answer.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { sessionList, sessionTranscript } from '../../src/common/protocol/runtime';
import type { TranscriptResult } from '../../src/common/protocol/runtime';
import type { ContentBlock, Entry, ToolResultBlock, ToolUseBlock } from '../../src/common/transcript';
import { activateExtension, waitFor } from './support';
import type { ForkAgentsApi } from './support';

const PROMPT = 'list the files and read README.md';

function blocks(entries: Entry[]): ContentBlock[] {
  return entries.flatMap(entry => entry.message.content);
}

function toolUses(entries: Entry[]): ToolUseBlock[] {
  return blocks(entries).filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

function resultText(result: ToolResultBlock): string {
  return typeof result.content === 'string' ? result.content : result.content.map(b => (b.type === 'text' ? b.text : '')).join('');
}

describe('@fork in the Chat view', () => {
  let api: ForkAgentsApi;

  before(async () => {
    api = await activateExtension();
    // A request sent before the Chat view has a model goes to the Copilot sign-in flow instead of @fork.
    await waitFor('the fork-agents model', async () => ((await vscode.lm.selectChatModels({ vendor: 'fork-agents' })).length > 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
  });

  it('answers "list the files and read README.md" with real tool calls', async function () {
    this.timeout(120_000);
    const before = new Set((await api.runtime.request(sessionList, {})).sessions.map(s => s.id));
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@fork ${PROMPT}` });

    let last: TranscriptResult | undefined;
    const transcript = await waitFor(
      'a finished session with list_files, read_file and an answer',
      async () => {
        const fresh = (await api.runtime.request(sessionList, {})).sessions.filter(s => !before.has(s.id));
        if (fresh.length === 0) return undefined;
        last = await api.runtime.request(sessionTranscript, { sessionId: fresh[0].id });
        const final = last.entries[last.entries.length - 1];
        const done = !last.running && final?.kind === 'response' && final.message.content.some(b => b.type === 'text');
        return done ? last : undefined;
      },
      {
        timeoutMs: 100_000,
        describe: () => (last ? last.entries.map(e => `${e.kind}(${e.message.content.map(b => b.type).join(',')})`).join(' ') : 'no new session'),
      },
    );

    const { entries } = transcript;
    const prompt = entries.find(e => e.kind === 'prompt');
    assert.ok(prompt, 'the request is recorded as a prompt entry');
    assert.match(JSON.stringify(prompt.message.content), /list the files and read README\.md/);

    const uses = toolUses(entries);
    const names = uses.map(u => u.name);
    assert.ok(names.includes('list_files'), `tool calls: ${names.join(', ')}`);
    assert.ok(names.includes('read_file'), `tool calls: ${names.join(', ')}`);
    assert.ok(names.indexOf('list_files') < names.indexOf('read_file'), 'files are listed before README.md is read');

    // Every tool call got a result, and the results come from the real workspace on disk.
    const results = blocks(entries).filter((b): b is ToolResultBlock => b.type === 'tool_result');
    const resultOf = (use: ToolUseBlock) => results.find(r => r.tool_use_id === use.id);
    for (const use of uses) assert.ok(resultOf(use), `no tool_result for ${use.name} (${use.id})`);
    const listing = resultText(resultOf(uses.find(u => u.name === 'list_files')!)!);
    assert.match(listing, /src\/greet\.js/);
    assert.match(listing, /README\.md/);
    const readme = resultOf(uses.find(u => u.name === 'read_file')!)!;
    assert.notEqual(readme.is_error, true, resultText(readme));
    assert.match(resultText(readme), /# Greeter/);

    const final = entries[entries.length - 1];
    const answer = final.message.content.filter(b => b.type === 'text').map(b => (b as { text: string }).text).join('');
    // The demo model builds its answer from the tool results it got back.
    assert.match(answer, /Here is what I found/);
    assert.match(answer, /Greeter/);
  });

  it('sends an attached file as a reference and uses the model picked in the Chat view', async function () {
    this.timeout(120_000);
    const picked = 'claude-haiku-4-5';
    await vscode.workspace.getConfiguration('fork').update('models', [picked], vscode.ConfigurationTarget.Global);
    try {
      await waitFor(`the ${picked} model in the picker`, async () => ((await vscode.lm.selectChatModels({ vendor: 'fork-agents', id: picked })).length > 0 ? true : undefined), { timeoutMs: 20_000 });
      const readme = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'README.md');
      const before = new Set((await api.runtime.request(sessionList, {})).sessions.map(s => s.id));
      // A new chat: the previous one would continue its session, which keeps its own model.
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: '@fork what does the attached file say?', attachFiles: [readme], modelSelector: { vendor: 'fork-agents', id: picked },
      });
      let last: TranscriptResult | undefined;
      const transcript = await waitFor('a finished session for the attached file', async () => {
        const fresh = (await api.runtime.request(sessionList, {})).sessions.filter(s => !before.has(s.id));
        if (fresh.length === 0) return undefined;
        last = await api.runtime.request(sessionTranscript, { sessionId: fresh[0].id });
        return !last.running && last.entries.some(e => e.kind === 'response') ? last : undefined;
      }, { timeoutMs: 100_000, describe: () => (last ? JSON.stringify(last.entries.map(e => e.kind)) : 'no new session') });
      const prompt = transcript.entries.find(e => e.kind === 'prompt')!;
      const text = prompt.message.content.map(b => (b.type === 'text' ? b.text : '')).join('\n');
      assert.match(text, /<reference path="README\.md">\n# Greeter/, text.slice(0, 400));
      assert.equal(transcript.header.settings.model, picked, 'the session (and so every request) names the picked model');
    } finally {
      await vscode.workspace.getConfiguration('fork').update('models', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
