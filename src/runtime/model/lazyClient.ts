// The model client as the rest of the runtime sees it, with the SDKs behind it loaded on the first request:
// anthropicClient.ts and everything it imports (the Anthropic SDK, the cloud SDKs) are bundled apart as
// dist/lazy/model.js (esbuild.mjs), so a runtime's start-up neither reads nor compiles them — most of
// the bundle, and nothing a runtime needs before its first model request.
import type { ListedModel } from '../../common/protocol/model';
import type { AnthropicClientOptions } from './anthropicClient';
import type { ModelClient } from './modelClient';

type ClientModule = typeof import('./anthropicClient');

let loaded: Promise<ClientModule> | undefined;

function clientModule(): Promise<ClientModule> {
  // A failed load is not kept: the next request tries again.
  // require, not import(): a dynamic import would start Node's ESM loader in every runtime for this one file.
  loaded ??= Promise.resolve().then(() => require('./anthropicClient') as ClientModule).catch(error => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  let client: ModelClient | undefined;
  return {
    async stream(body, signal, handlers, facts) {
      client ??= (await clientModule()).createAnthropicClient(options);
      return client.stream(body, signal, handlers, facts);
    },
  };
}

export async function listModels(options: AnthropicClientOptions): Promise<ListedModel[]> {
  return (await clientModule()).listModels(options);
}
