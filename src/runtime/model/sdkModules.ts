// The Anthropic SDK's modules the cloud SDKs import, as the model client's bundle (dist/lazy/model.js) holds
// them. The cloud SDKs are bundled apart (dist/lazy/cloud.js, esbuild.mjs) and take these instead of a copy
// of their own, so their clients are the same BaseAnthropic and throw the same error classes that
// anthropicClient.ts checks with instanceof — and a runtime that talks to the Anthropic API compiles only it.
import * as client from '@anthropic-ai/sdk/client';
import * as coreError from '@anthropic-ai/sdk/core/error';
import * as coreMiddleware from '@anthropic-ai/sdk/core/middleware';
import * as corePagination from '@anthropic-ai/sdk/core/pagination';
import * as coreStreaming from '@anthropic-ai/sdk/core/streaming';
import * as error from '@anthropic-ai/sdk/error';
import * as resources from '@anthropic-ai/sdk/resources/index';
import * as streaming from '@anthropic-ai/sdk/streaming';
import * as version from '@anthropic-ai/sdk/version';

/** By import path; esbuild.mjs fails the build when a cloud SDK imports a path missing here. */
export const sdkModules: Record<string, unknown> = {
  '@anthropic-ai/sdk/client': client,
  '@anthropic-ai/sdk/core/error': coreError,
  '@anthropic-ai/sdk/core/middleware': coreMiddleware,
  '@anthropic-ai/sdk/core/pagination': corePagination,
  '@anthropic-ai/sdk/core/streaming': coreStreaming,
  '@anthropic-ai/sdk/error': error,
  '@anthropic-ai/sdk/resources/index': resources,
  '@anthropic-ai/sdk/streaming': streaming,
  '@anthropic-ai/sdk/version': version,
};
