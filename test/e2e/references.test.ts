// UI checks of the user's own context and tools in a real workbench (code-server + chromium):
// a `#file` reference and an editor selection picked in the Chat view reach the prompt entry the fake
// Anthropic server received; the model picked in the Chat view's picker is the one the request names and
// the session records; a repository's `.vscode/mcp.json` stdio server (the real server-everything from npm)
// is started only after its trust prompt, which shows the exact command line: Not Now leaves it out,
// Trust and Start lets the agent call its tool, and the answer is remembered across a window reload.
// Screenshots go to test-results/refs-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../scripts/e2e/tools';
import type { ReceivedRequest } from '../fakes/anthropicServer';
import { attachFileInChat, attachSelectionInChat, mcpTrustNotification, newChat, notification, pickedModel, pickModel, selectLinesInEditor, showNotifications } from './chatContextUi';
import { echoMessageOf, ECHO_ASK, requestWith, toolNames, userTexts, referencesResponder } from './referencesScript';
import { uiRun } from './uiRun';
import { forkFromHere, lastResponse, openChat, screenshot, submitChat, typeInChat, waitForModelInPicker } from './workbenchUi';

const EVERYTHING = path.join(repoRoot(), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const MODELS = [
  { id: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5' },
  { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5' },
];

describe('Chat references, the model picker and MCP trust (code-server + chromium)', function () {
  this.timeout(180_000);
  let mcpFile = '';
  const run = uiRun('refs', {
    fake: { responder: referencesResponder(), models: MODELS, streamDelayMs: 5 },
    // Application-scoped: read from user settings only. Auto: MCP calls run without an approval prompt.
    stack: { userSettings: { 'fork.approvalMode': 'auto' } },
    // A repository's own MCP server, as a clone brings it (written before the window opens).
    prepare: ({ stack }) => {
      mcpFile = path.join(stack.workspace.folder, '.vscode', 'mcp.json');
      writeMcpJson({ type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    },
  });
  const cli = run.cli;

  function writeMcpJson(entry: Record<string, unknown>): void {
    fs.mkdirSync(path.dirname(mcpFile), { recursive: true });
    fs.writeFileSync(mcpFile, `${JSON.stringify({ servers: { everything: entry } }, null, 2)}\n`);
  }

  /** Sends what the input holds and waits until the turn is over (Fork from here appears then); returns its request. */
  async function sendAndFinish(marker: string, answer: string | RegExp): Promise<ReceivedRequest> {
    const page = run.page;
    await submitChat(page);
    const response = lastResponse(page);
    await response.filter({ hasText: answer }).waitFor({ timeout: 90_000 });
    await forkFromHere(response).waitFor({ timeout: 60_000 });
    return requestWith(run.fake, marker);
  }

  it('prompts on first use with the exact command line; a #file reference reaches the prompt entry', async () => {
    const page = run.page;
    await openChat(page);
    await waitForModelInPicker(page, 'Claude ');
    await typeInChat(page, '@fork marker-file: what does the attached file say?');
    await attachFileInChat(page, 'README.md');
    await screenshot(page, 'refs-file-attached');
    const request = await sendAndFinish('marker-file', 'Answered by');
    await screenshot(page, 'refs-file-answer');
    const readme = fs.readFileSync(path.join(run.stack.workspace.folder, 'README.md'), 'utf8');
    const prompt = userTexts(request.body).join('\n');
    assert.ok(prompt.includes(`<reference path="README.md">\n${readme}\n</reference>`), `the prompt entry carries README.md's path and text:\n${prompt.slice(0, 800)}`);
    // The cost note names the chat's own model (the picker's, which need not be fork.model).
    assert.match(await lastResponse(page).innerText(), new RegExp(`Cost on ${request.body.model}: \\$`));

    // The first request started the runtime, and with it the repository's server's trust prompt.
    const toast = await mcpTrustNotification(page, 'everything');
    await toast.waitFor({ timeout: 60_000 });
    await screenshot(page, 'refs-mcp-prompt');
    assert.ok((await toast.innerText()).replace(/\s+/g, ' ').includes(`${process.execPath} ${EVERYTHING} stdio`), `the prompt shows the exact command line:\n${await toast.innerText()}`);
  });

  it('Not Now leaves the repository\'s MCP server out of a new chat', async () => {
    const page = run.page;
    const toast = await mcpTrustNotification(page, 'everything');
    await toast.getByRole('button', { name: 'Not Now' }).click();
    await toast.waitFor({ state: 'hidden', timeout: 30_000 });
    await newChat(page);
    await typeInChat(page, `@fork marker-declined: ${ECHO_ASK}`);
    const request = await sendAndFinish('marker-declined', 'no MCP echo tool');
    await screenshot(page, 'refs-mcp-declined');
    assert.ok(toolNames(request.body).includes('read_file'), 'the built-in tools are there');
    assert.deepEqual(toolNames(request.body).filter(name => name.startsWith('mcp__')), [], 'no MCP tools without trust');
  });

  it('sends an editor selection as a reference with its lines', async () => {
    const page = run.page;
    await selectLinesInEditor(page, 'src/math.js', 1, 3);
    await screenshot(page, 'refs-selection-made');
    await newChat(page);
    await typeInChat(page, '@fork marker-selection: explain');
    await attachSelectionInChat(page, 'math.js');
    await screenshot(page, 'refs-selection-attached');
    const request = await sendAndFinish('marker-selection', 'Answered by');
    await screenshot(page, 'refs-selection-answer');
    const lines = fs.readFileSync(path.join(run.stack.workspace.folder, 'src', 'math.js'), 'utf8').split('\n').slice(0, 3);
    const prompt = userTexts(request.body).join('\n');
    assert.match(prompt, /<reference path="src\/math\.js" lines="1-3">/, prompt.slice(0, 800));
    for (const line of lines.filter(l => l.trim())) assert.ok(prompt.includes(line), `the selection's line "${line}" is in the prompt entry`);
  });

  it('the model picked in the Chat view is the one the request names, and the session records it', async () => {
    const page = run.page;
    await newChat(page);
    // Whichever of our two models the Chat view chose, pick the other one.
    // fork.model is listed with a leading star (the picker's default); the model's own name follows it.
    const shown = (await pickedModel(page)).replace(/^★\s*/, '');
    const before = MODELS.find(m => m.display_name === shown);
    assert.ok(before, `the picker shows one of our models, not "${shown}"`);
    const target = MODELS.find(m => m !== before)!;
    await pickModel(page, target.display_name);
    await screenshot(page, 'refs-model-picked');
    await typeInChat(page, '@fork marker-model: which model are you?');
    const request = await sendAndFinish('marker-model', `Answered by ${target.id}`);
    await screenshot(page, 'refs-model-answer');
    assert.equal(request.body.model, target.id);
    assert.match(await lastResponse(page).innerText(), new RegExp(`Cost on ${target.id}: \\$`), 'the cost note names the chat\'s model, priced from the built-in table');
    assert.notEqual(requestWith(run.fake, 'marker-file').body.model, target.id, 'the earlier chat used the model picked before');
    const sessions = (await cli('list', '--json')).trim().split('\n').map(line => JSON.parse(line) as { type: string; id: string; title?: string });
    const session = sessions.find(s => s.type === 'session' && s.title?.includes('marker-model'));
    assert.ok(session, `the chat's session is listed:\n${sessions.map(s => JSON.stringify(s)).join('\n')}`);
    const header = JSON.parse((await cli('transcript', '--session', session.id, '--json')).split('\n')[0]) as { header: { settings: { model: string } } };
    assert.equal(header.header.settings.model, target.id, 'the session header records the picked model');
  });

  it('a changed entry asks again; Trust and Start lets a new chat call the server\'s tool', async () => {
    const page = run.page;
    // Any change to the entry resets its trust: the prompt comes back (the file watcher reconfigures).
    writeMcpJson({ type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { FORK_E2E: 'changed' } });
    const toast = await mcpTrustNotification(page, 'everything');
    await toast.waitFor({ timeout: 60_000 });
    await screenshot(page, 'refs-mcp-prompt-again');
    await toast.getByRole('button', { name: 'Trust and Start' }).click();
    // Shown once the runtime is being reconfigured with the server: the next request waits for that.
    await notification(page, 'MCP server "everything" trusted').waitFor({ timeout: 30_000 });
    await screenshot(page, 'refs-mcp-trusted');
    await newChat(page);
    await typeInChat(page, `@fork marker-trusted: ${ECHO_ASK}`);
    await submitChat(page);
    await lastResponse(page).filter({ hasText: 'The echo tool answered' }).waitFor({ timeout: 120_000 });
    await screenshot(page, 'refs-mcp-called');
    const first = requestWith(run.fake, 'marker-trusted');
    assert.ok(toolNames(first.body).includes('mcp__everything__echo'), `the server's tools are offered: ${toolNames(first.body).join(', ')}`);
    const echoed = run.fake.requests.find(r => echoMessageOf(r.body) !== undefined && userTexts(r.body).some(t => t.includes('marker-trusted')));
    assert.ok(echoed, 'a request carried the echo tool\'s result');
    assert.match(echoMessageOf(echoed.body)!, /Echo: hello from the Chat view/);
  });

  it('remembers the trust across a window reload: no prompt, and a new chat has the tools', async () => {
    const page = run.page;
    await run.reload({ lastMessage: `@fork marker-trusted: ${ECHO_ASK}` });
    await openChat(page);
    // After a reload the extension activates again (onStartupFinished) beside the restored editors' language
    // servers: on a loaded machine its models reach the picker later than on a first start.
    await waitForModelInPicker(page, 'Claude ', 90_000);
    await newChat(page);
    await typeInChat(page, `@fork marker-reloaded: ${ECHO_ASK}`);
    await submitChat(page);
    await lastResponse(page).filter({ hasText: 'The echo tool answered' }).waitFor({ timeout: 120_000 });
    await screenshot(page, 'refs-mcp-after-reload');
    assert.ok(toolNames(requestWith(run.fake, 'marker-reloaded').body).includes('mcp__everything__echo'), 'the trusted server is started without asking');
    await showNotifications(page);
    await screenshot(page, 'refs-mcp-after-reload-notifications');
    assert.equal(await notification(page, 'wants to start the MCP server').count(), 0, 'no trust prompt after the reload');
  });
});
