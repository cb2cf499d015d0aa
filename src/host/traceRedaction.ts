// The language client's message trace (`forkAgentsRuntime.trace.server`: verbose) prints every message's
// parameters: `runtime/configure` carries the API key, a Vertex access token and MCP servers' env and
// headers (tokens, `${input:…}` values), `initialize` the runtime's token. The trace goes through this
// channel, which blanks those values before anything is written.
import type * as vscode from 'vscode';

const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const SECRET_FIELDS = new RegExp(String.raw`("(?:apiKey|token|accessToken)"\s*:\s*)` + JSON_STRING, 'g');
/** `env` / `headers`: flat objects of strings (a brace inside a string does not end them). */
const SECRET_MAPS = new RegExp(String.raw`("(?:env|headers)"\s*:\s*)\{(?:\s*${JSON_STRING}\s*:\s*${JSON_STRING}\s*,?)*\s*\}`, 'g');

export function redactSecrets(text: string): string {
  return text.replace(SECRET_FIELDS, '$1"[redacted]"').replace(SECRET_MAPS, '$1"[redacted]"');
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
