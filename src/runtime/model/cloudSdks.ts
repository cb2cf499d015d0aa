// Amazon Bedrock's and Google Vertex AI's Anthropic SDKs with the AWS and Google auth libraries: bundled apart
// as dist/lazy/cloud.js (esbuild.mjs), loaded by providers.ts on the first request to a cloud only.
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';

export { AnthropicBedrock, AnthropicVertex };

/** A Google auth client that presents a given access token (e.g. `gcloud auth print-access-token`). */
export function tokenClient(accessToken: string): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: accessToken });
  return client;
}
