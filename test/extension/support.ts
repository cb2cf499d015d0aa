// Helpers for the extension-host suite: the extension's activate() API and condition polling.
import * as vscode from 'vscode';
import type { RequestDescriptor } from '../../src/common/protocol/descriptor';

export const EXTENSION_ID = 'fork-agents.fork-agents';

/** What activate() returns (the contract the host exposes for tests and other extensions). */
export interface ForkAgentsApi {
  storeDir: string;
  runtime: { request<P, R>(descriptor: RequestDescriptor<P, R>, params: P): Promise<R> };
}

export async function activateExtension(): Promise<ForkAgentsApi> {
  const extension = vscode.extensions.getExtension<ForkAgentsApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in this extension host`);
  return extension.activate();
}

/**
 * Polls `probe` until it returns a value (not undefined). Waiting on a condition, not a fixed sleep;
 * `describe` says what was last seen when the deadline passes.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; describe?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const seen = options.describe ? `; last seen: ${options.describe()}` : '';
      const failed = lastError ? `; last error: ${(lastError as Error).message ?? lastError}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${seen}${failed}`);
    }
    await new Promise(resolve => setTimeout(resolve, delay));
  }
}
