// The bundles a runtime loads, as built (dist/): what start-up and the first answer read and keep.
// - ASCII only: V8 keeps a running script's whole source, as a two-byte string once it holds one non-ASCII
//   character (esbuild.mjs, asciiComments).
// - The model bundle never touches Node's global Headers or FormData, whose first use loads Node's bundled
//   undici (esbuild.mjs injects model/fetchHeaders.ts); the runtime's own bundle holds no SDK.
// - The Anthropic client's bundle holds no cloud SDK, and the cloud bundle holds no copy of the Anthropic
//   SDK: it uses the very modules of the model bundle (model/sdkModules.ts), so instanceof checks hold.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const DIST = path.resolve(__dirname, '../../../dist');

// Strings minification keeps: the cloud SDKs' environment variables, and an error message of the Anthropic
// SDK's own client (a copy of that client in cloud.js would carry it).
const CLOUD_MARKERS = ['AWS_REGION', 'CLOUD_ML_REGION', 'GOOGLE_APPLICATION_CREDENTIALS'];
const ANTHROPIC_CLIENT_MARKER = 'Could not resolve authentication method';

function bundle(name: string): string {
  return fs.readFileSync(path.join(DIST, name), 'utf8');
}

describe('bundles: what the runtime reads and keeps', () => {
  it('the runtime, the CLI and the lazily loaded bundles are ASCII', () => {
    const lazy = fs.readdirSync(path.join(DIST, 'lazy')).filter(name => name.endsWith('.js')).map(name => `lazy/${name}`);
    assert.ok(lazy.includes('lazy/model.js') && lazy.includes('lazy/cloud.js'), `lazy bundles: ${lazy.join(', ')}`);
    for (const name of ['runtime.js', 'cli.js', ...lazy]) {
      const text = bundle(name);
      const at = text.search(/[^\x00-\x7f]/);
      assert.equal(at, -1, `${name} has a non-ASCII character at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 10))}`);
    }
  });

  it('the model client holds no cloud SDK; the cloud SDKs extend and throw the model bundle\'s own classes', () => {
    const model = bundle('lazy/model.js');
    const cloud = bundle('lazy/cloud.js');
    for (const marker of CLOUD_MARKERS) {
      assert.ok(cloud.includes(marker), `cloud.js holds ${marker}`);
      assert.ok(!model.includes(marker), `model.js holds ${marker}`);
    }
    assert.ok(model.includes(ANTHROPIC_CLIENT_MARKER), 'model.js holds the Anthropic client');
    assert.ok(!cloud.includes(ANTHROPIC_CLIENT_MARKER), 'cloud.js holds a copy of the Anthropic client');
    // Loaded as the runtime loads them: plain requires of the built files.
    const { sdkModules } = require(path.join(DIST, 'lazy/model.js')) as { sdkModules: Record<string, Record<string, new (...args: never[]) => unknown>> };
    const { AnthropicBedrock, AnthropicVertex, tokenClient } = require(path.join(DIST, 'lazy/cloud.js')) as typeof import('../../src/runtime/model/cloudSdks');
    const BaseAnthropic = sdkModules['@anthropic-ai/sdk/client'].BaseAnthropic;
    const AnthropicError = sdkModules['@anthropic-ai/sdk/error'].AnthropicError;
    const bedrock = new AnthropicBedrock({ awsRegion: 'us-east-1', awsAccessKey: 'key', awsSecretKey: 'secret' });
    const vertex = new AnthropicVertex({ region: 'us-east5', projectId: 'project', authClient: tokenClient('token') });
    assert.ok(bedrock instanceof BaseAnthropic && vertex instanceof BaseAnthropic);
    // The Bedrock client's beta resource refuses the Admin API with the SDK's error class: the model bundle's own.
    const beta = (bedrock as unknown as { beta: { organization: unknown } }).beta;
    assert.throws(() => beta.organization, (error: unknown) => error instanceof AnthropicError);
  });

  it('the model bundle uses its own Headers and FormData, never the globals; the runtime bundle holds no SDK', () => {
    const model = bundle('lazy/model.js');
    for (const use of [/new Headers\(/, /instanceof Headers\b/, /instanceof FormData\b/, /globalThis\.Headers\b/]) {
      assert.ok(!use.test(model), `model.js: ${use} (Node's global, which loads its undici)`);
    }
    assert.ok(model.includes('new FetchHeaders('), 'model.js builds its headers with model/fetchHeaders.ts');
    const runtime = bundle('runtime.js');
    assert.ok(!runtime.includes(ANTHROPIC_CLIENT_MARKER), 'runtime.js holds the Anthropic SDK');
    assert.ok(!runtime.includes('class FetchHeaders'), 'runtime.js holds the model client');
  });
});
