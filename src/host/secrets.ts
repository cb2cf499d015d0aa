// The Anthropic API key (docs/design.md §6): SecretStorage first, then ANTHROPIC_API_KEY. The key is never logged.
import * as vscode from 'vscode';
import { resolveApiKey } from './modelAccess';

const SECRET_NAME = 'forkAgents.anthropicApiKey';

export class ApiKeyStore {
  readonly onDidChange: vscode.Event<void>;

  private readonly secrets: vscode.SecretStorage;

  constructor(context: vscode.ExtensionContext) {
    this.secrets = context.secrets;
    const emitter = new vscode.EventEmitter<void>();
    this.onDidChange = emitter.event;
    context.subscriptions.push(
      emitter,
      this.secrets.onDidChange(event => {
        if (event.key === SECRET_NAME) emitter.fire();
      }),
    );
  }

  async get(): Promise<string | undefined> {
    return resolveApiKey(await this.secrets.get(SECRET_NAME), process.env);
  }

  store(key: string): Thenable<void> {
    return this.secrets.store(SECRET_NAME, key);
  }

  clear(): Thenable<void> {
    return this.secrets.delete(SECRET_NAME);
  }
}

export function registerKeyCommands(context: vscode.ExtensionContext, keys: ApiKeyStore): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('forkAgents.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'Fork: Set Anthropic API Key',
        prompt: "Stored in VS Code's secret storage and passed to the Fork Agents runtime in memory only.",
        placeHolder: 'sk-ant-…',
        password: true,
        ignoreFocusOut: true,
        validateInput: value => (value.trim() === '' ? 'Enter a key, or press Escape to cancel.' : undefined),
      });
      if (key === undefined) return;
      await keys.store(key.trim());
      void vscode.window.showInformationMessage('Anthropic API key saved.');
    }),
    vscode.commands.registerCommand('forkAgents.clearApiKey', async () => {
      await keys.clear();
      const fallback = process.env.ANTHROPIC_API_KEY?.trim() ? ' ANTHROPIC_API_KEY from the environment is used instead.' : '';
      void vscode.window.showInformationMessage(`Anthropic API key cleared.${fallback}`);
    }),
  );
}
