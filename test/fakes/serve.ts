// CLI: `node out/test/fakes/serve.js [--port N] [--demo] [--api-key K] [--stream-delay-ms N] [--min-cache-tokens N]`.
// Starts the fake Anthropic server (with the demo model when --demo), prints one JSON line {"url": "..."}
// on stdout for the launcher to read, and runs until SIGTERM/SIGINT.
import { startFakeAnthropic } from './anthropicServer';
import type { FakeAnthropicOptions } from './anthropicServer';
import { demoResponder } from './demoScript';

function parseArgs(argv: string[]): FakeAnthropicOptions {
  const options: FakeAnthropicOptions = {};
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--port': options.port = number(flag, argv[++i]); break;
      case '--demo': options.responder = demoResponder(); break;
      case '--api-key': {
        const key = argv[++i];
        if (!key) throw new Error('--api-key needs a value');
        options.apiKey = key;
        break;
      }
      case '--stream-delay-ms': options.streamDelayMs = number(flag, argv[++i]); break;
      case '--min-cache-tokens': options.minCacheTokens = number(flag, argv[++i]); break;
      default: throw new Error(`unknown argument: ${flag}`);
    }
  }
  return options;
}

async function main(): Promise<void> {
  let options: FakeAnthropicOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const server = await startFakeAnthropic(options);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const stop = (): void => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch(err => {
  process.stderr.write(`serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
