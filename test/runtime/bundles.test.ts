// The bundles a runtime loads, as built (dist/): what start-up and the first answer read and keep.
// - ASCII only: V8 keeps a running script's whole source, as a two-byte string once it holds one non-ASCII
//   character (esbuild.mjs, asciiComments).
// - The Anthropic client's bundle holds no cloud SDK, and the cloud bundle holds no copy of the Anthropic
//   SDK: it uses the very modules of the model bundle (model/sdkModules.ts), so instanceof checks hold.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const DIST = path.resolve(__dirname, '../../../dist');

/** Whether the bundle defines class `name` (esbuild writes `class X`, `X = class`, or `X = (() => { class X2`). */
function defines(text: string, name: string): boolean {
  return new RegExp(`\\b${name}\\d*\\s*=\\s*(\\(\\(\\)\\s*=>\\s*\\{\\s*)?class\\b|\\bclass ${name}\\d*\\b`).test(text);
}

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
    for (const name of ['AnthropicBedrock', 'AnthropicVertex', 'OAuth2Client']) {
      assert.ok(defines(cloud, name), `cloud.js defines ${name}`);
      assert.ok(!defines(model, name), `model.js defines ${name}`);
    }
    assert.ok(defines(model, 'BaseAnthropic'), 'model.js defines BaseAnthropic');
    assert.ok(!defines(cloud, 'BaseAnthropic'), 'cloud.js defines its own BaseAnthropic');
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
});
