// Amazon Bedrock and Google Vertex AI behind the same ModelClient (docs/design.md §5): their Anthropic SDKs speak
// each cloud's wire format and auth (AWS credential chain + region; Google application-default
// credentials + project + region). Sessions record Anthropic model ids; modelIds.ts maps them per provider.
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';
import type { ProxySettings } from '../../common/protocol/runtime';
import { proxyFetch } from '../proxyFetch';

export type ProviderAccess =
  | { name: 'bedrock'; region?: string; baseUrl?: string }
  | { name: 'vertex'; projectId?: string; region?: string; accessToken?: string; baseUrl?: string };

export interface SdkOptions { apiKey: string; baseUrl?: string; proxy?: ProxySettings; provider?: ProviderAccess }

/** The Messages client for the access: all three share `messages.stream` and the SDK's error classes. */
export function createSdk(options: SdkOptions, extra: { maxRetries: number; timeout: number }): Anthropic {
  const fetch = proxyFetch(options.proxy);
  const provider = options.provider;
  // fork.anthropic.baseUrl is the Anthropic API's: a cloud gets its own endpoint or the SDK's default.
  const baseURL = provider ? provider.baseUrl : options.baseUrl;
  const common = { maxRetries: extra.maxRetries, timeout: extra.timeout, ...(fetch ? { fetch } : {}), ...(baseURL ? { baseURL } : {}) };
  if (provider?.name === 'bedrock') {
    return new AnthropicBedrock({ ...common, ...(provider.region ? { awsRegion: provider.region } : {}) }) as unknown as Anthropic;
  }
  if (provider?.name === 'vertex') {
    return new AnthropicVertex({
      ...common,
      ...(provider.region ? { region: provider.region } : {}),
      ...(provider.projectId ? { projectId: provider.projectId } : {}),
      // A given token (e.g. `gcloud auth print-access-token`) instead of application-default credentials.
      ...(provider.accessToken ? { authClient: tokenClient(provider.accessToken) } : {}),
    }) as unknown as Anthropic;
  }
  return new Anthropic({ ...common, apiKey: options.apiKey });
}

function tokenClient(accessToken: string): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: accessToken });
  return client;
}
