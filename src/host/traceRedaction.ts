// The language client's message trace (`forkAgentsRuntime.trace.server`: verbose) prints every message's
// parameters: `runtime/configure` carries the API key and `initialize` the runtime's token. The trace
// goes through this channel, which blanks those values before anything is written (issue 11).
import type * as vscode from 'vscode';

const SECRET_FIELDS = /("(?:apiKey|token)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

export function redactSecrets(text: string): string {
  return text.replace(SECRET_FIELDS, '$1"[redacted]"');
}

type TraceChannel = Pick<vscode.LogOutputChannel, 'trace'>;

/** The channel itself for everything but `trace`, whose messages are redacted first. */
export function redactingTraceChannel<T extends TraceChannel>(channel: T): T {
  return new Proxy(channel, {
    get(target, property) {
      if (property === 'trace') return (message: string, ...args: unknown[]) => target.trace(redactSecrets(message), ...args);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
