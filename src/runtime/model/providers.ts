// Amazon Bedrock and Google Vertex AI behind the same ModelClient (docs/design.md §5): their Anthropic SDKs speak
// each cloud's wire format and auth (AWS credential chain + region; Google application-default
// credentials + project + region). Sessions record Anthropic model ids; modelIds.ts maps them per provider.
// The cloud SDKs (with the AWS and Google auth libraries, most of the model client's code) live in their own
// bundle (cloudSdks.ts), loaded on the first request to a cloud: a runtime that talks to the Anthropic API
// never reads, parses or evaluates them.
import Anthropic from '@anthropic-ai/sdk';
import type { ProxySettings } from '../../common/protocol/runtime';
import { proxyFetch } from '../proxyFetch';
import { nodeFetch } from './nodeFetch';

type CloudSdks = typeof import('./cloudSdks');

/** require, not import(): a dynamic import would start Node's ESM loader for this one file (as lazyClient.ts). */
function cloudSdks(): CloudSdks {
  return require('./cloudSdks') as CloudSdks;
}

export type ProviderAccess =
  | { name: 'bedrock'; region?: string; baseUrl?: string }
  | { name: 'vertex'; projectId?: string; region?: string; accessToken?: string; baseUrl?: string };

export interface SdkOptions { apiKey: string; baseUrl?: string; proxy?: ProxySettings; provider?: ProviderAccess }

/** The Messages client for the access: all three share `messages.stream` and the SDK's error classes. */
export async function createSdk(options: SdkOptions, extra: { maxRetries: number; timeout: number }): Promise<Anthropic> {
  const provider = options.provider;
  // The Anthropic API directly: node:http, not Node's fetch (nodeFetch.ts). Through a proxy, undici's fetch
  // with its agent; to a cloud, the global fetch its auth libraries are written against.
  const fetch = proxyFetch(options.proxy) ?? (provider ? undefined : (nodeFetch as unknown as typeof globalThis.fetch));
  // fork.anthropic.baseUrl is the Anthropic API's: a cloud gets its own endpoint or the SDK's default.
  const baseURL = provider ? provider.baseUrl : options.baseUrl;
  const common = { maxRetries: extra.maxRetries, timeout: extra.timeout, ...(fetch ? { fetch } : {}), ...(baseURL ? { baseURL } : {}) };
  if (provider?.name === 'bedrock') {
    const { AnthropicBedrock } = cloudSdks();
    return new AnthropicBedrock({ ...common, ...(provider.region ? { awsRegion: provider.region } : {}) }) as unknown as Anthropic;
  }
  if (provider?.name === 'vertex') {
    const { AnthropicVertex, tokenClient } = cloudSdks();
    const authClient = provider.accessToken ? tokenClient(provider.accessToken) : undefined;
    return new AnthropicVertex({
      ...common,
      ...(provider.region ? { region: provider.region } : {}),
      ...(provider.projectId ? { projectId: provider.projectId } : {}),
      // A given token (e.g. `gcloud auth print-access-token`) instead of application-default credentials.
      ...(authClient ? { authClient } : {}),
    }) as unknown as Anthropic;
  }
  return new Anthropic({ ...common, apiKey: options.apiKey });
}
