// What the Fork commands of the panel era share with the Forks panel.
import type { ForkStarter } from '../panel/forkStarter';
import type { ForksViewProvider } from '../panel/forksView';
import type { PanelModel } from '../panel/panelModel';
import type { RuntimeApi } from '../runtimeApi';
import type { HostSettings } from '../settings';

export interface PanelDeps {
  runtime: RuntimeApi;
  settings: HostSettings;
  starter: ForkStarter;
  model: PanelModel;
  view(): ForksViewProvider;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
