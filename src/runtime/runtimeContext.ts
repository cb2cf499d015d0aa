// What every protocol handler may use. Built once in server.ts.
import type { RuntimeInfo } from '../common/protocol/runtime';
import type { SessionStore } from './session/sessionStore';
import type { TurnRegistry } from './turns';

export interface RuntimeContext {
  store: SessionStore;
  turns: TurnRegistry;
  info: RuntimeInfo;
}

export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_MAX_TOKENS = 16_000;
