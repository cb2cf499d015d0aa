// CLI: `node dist/fake-anthropic.js [--port N] [--demo] [--api-key K] [--stream-delay-ms N] [--min-cache-tokens N]
//       [--url-file PATH] [--idle-exit-ms N] [--no-models]`.
// Starts the fake Anthropic server (with the demo model when --demo), prints one JSON line {"url": "..."} on
// stdout for the launcher to read (and, with --url-file, writes {"url", "pid"} to that file, for a detached
// start by `fork-agents --demo`), and runs until SIGTERM/SIGINT — or, with --idle-exit-ms, until no request
// has come for that long (a detached demo model must not outlive its use).
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { startFakeAnthropic } from './anthropicServer';
import type { FakeAnthropicOptions } from './anthropicServer';
import { demoResponder } from './demoScript';

interface ServeOptions { server: FakeAnthropicOptions; urlFile?: string; idleExitMs?: number }

function optionsFrom(argv: string[]): ServeOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      demo: { type: 'boolean' },
      'api-key': { type: 'string' },
      'stream-delay-ms': { type: 'string' },
      'min-cache-tokens': { type: 'string' },
      'url-file': { type: 'string' },
      'idle-exit-ms': { type: 'string' },
      'no-models': { type: 'boolean' },
    },
  });
  const number = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} needs a non-negative integer`);
    return n;
  };
  if (values['api-key'] === '') throw new Error('--api-key needs a value');
  return {
    server: {
      port: number('port', values.port),
      responder: values.demo ? demoResponder() : undefined,
      apiKey: values['api-key'],
      streamDelayMs: number('stream-delay-ms', values['stream-delay-ms']),
      minCacheTokens: number('min-cache-tokens', values['min-cache-tokens']),
      // As an endpoint without a models list: the Chat view's picker then offers fork.model and fork.models.
      ...(values['no-models'] ? { models: 'none' as const } : {}),
      // Sessions outlive a demo server (it exits when idle); ids must not repeat across servers.
      idPrefix: values.demo ? `${Date.now().toString(36)}${process.pid.toString(36)}_` : undefined,
    },
    urlFile: values['url-file'],
    idleExitMs: number('idle-exit-ms', values['idle-exit-ms']),
  };
}

async function main(): Promise<void> {
  let options: ServeOptions;
  try {
    options = optionsFrom(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message.split('\n', 1)[0]}\n`);
    process.exit(2);
  }
  const server = await startFakeAnthropic(options.server);
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (options.idleExitMs !== undefined) {
    const idleMs = options.idleExitMs;
    let timer = setTimeout(stop, idleMs);
    server.onResponse(() => {
      clearTimeout(timer);
      timer = setTimeout(stop, idleMs);
    });
    server.onRequest(() => clearTimeout(timer));
  }
  if (options.urlFile) {
    const temp = `${options.urlFile}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify({ url: server.url, pid: process.pid }), { mode: 0o600 });
    fs.renameSync(temp, options.urlFile);
  }
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

main().catch(err => {
  process.stderr.write(`serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
