// Bundles the extension, the runtime process, the CLI, the webview (script, CSS, codicons) and the demo's fake model server.
// Flags: --watch (rebuild on change), --production (minify, no source maps).
import { context } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  define: { FORK_AGENTS_VERSION: JSON.stringify(version) },
};
// jsonc-parser's main is a UMD build whose dynamic requires a bundle cannot follow: bundle its ESM build.
const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' } };

// What the runtime loads on first use only (dynamic imports: a proxy, an MCP server) lives in its own
// files under dist/lazy/, so a runtime's start-up neither reads nor compiles it. Only self-contained
// packages: a split copy of a package the main bundle also holds would break instanceof checks.
// The model client (the Anthropic and cloud SDKs) loads on the first model request: ModelError, the one
// class both sides check, matches across copies (model/modelClient.ts).
// The cloud SDKs (Bedrock, Vertex and their auth libraries) load on the first request to a cloud, apart from
// the model client: a runtime that talks to the Anthropic API reads and compiles a third of the code.
const LAZY = {
  'lazy/undici': 'undici',
  'lazy/mcp-sdk': 'src/runtime/mcp/mcpSdk.ts',
  'lazy/cloud': 'src/runtime/model/cloudSdks.ts',
};
// Built apart from the others for one reason: in it `Headers` and `FormData` are model/fetchHeaders.ts, not
// Node's globals, whose first touch loads Node's bundled undici and keeps ~10 MB for the runtime's life (with
// nodeFetch.ts, a runtime that talks to the Anthropic API never loads it).
const LAZY_MODEL = { 'lazy/model': 'src/runtime/model/anthropicClient.ts' };
const lazyImports = { undici: 'lazy/undici', './mcpSdk': 'lazy/mcp-sdk', './anthropicClient': 'lazy/model', './cloudSdks': 'lazy/cloud' };
/** Loaded with a plain require at first use (model/lazyClient.ts, model/providers.ts); the others with import(). */
const requiredLazily = new Set(['./anthropicClient', './cloudSdks']);
/** Resolves the lazy imports to their files, relative to a bundle in `from` ('' for dist/, 'lazy/' for dist/lazy/). */
const splitLazy = from => ({
  name: 'split-lazy',
  setup(build) {
    build.onResolve({ filter: /^(undici|\.\/mcpSdk|\.\/anthropicClient|\.\/cloudSdks)$/ }, args => {
      const out = lazyImports[args.path];
      const lazyKind = requiredLazily.has(args.path) ? 'require-call' : 'dynamic-import';
      if (args.kind !== lazyKind || !out) return undefined;
      return { path: `./${from ? out.slice(from.length) : out}.js`, external: true };
    });
  },
});
// The cloud SDKs extend the Anthropic SDK's client and throw its errors: in dist/lazy/cloud.js each of their
// imports of it is the module dist/lazy/model.js holds (model/sdkModules.ts), never a second copy, so
// instanceof keeps working across the two files. An import missing from sdkModules.ts fails the build.
const SHARED_SDK_PATHS = [...readFileSync('src/runtime/model/sdkModules.ts', 'utf8').matchAll(/^import \* as \w+ from '([^']+)';$/gm)].map(m => m[1]);
const sharedSdk = {
  name: 'shared-sdk',
  setup(build) {
    build.onResolve({ filter: /^@anthropic-ai\/sdk(\/|$)/ }, args => {
      if (!/node_modules[\\/]@anthropic-ai[\\/](bedrock|vertex)-sdk[\\/]/.test(args.importer)) return undefined;
      if (!SHARED_SDK_PATHS.includes(args.path)) return { errors: [{ text: `${args.path} (imported by ${args.importer}) is missing from src/runtime/model/sdkModules.ts` }] };
      return { path: args.path, namespace: 'shared-sdk' };
    });
    build.onResolve({ filter: /^\.\/model\.js$/, namespace: 'shared-sdk' }, () => ({ path: './model.js', external: true }));
    build.onLoad({ filter: /.*/, namespace: 'shared-sdk' }, args => ({
      contents: `module.exports = require('./model.js').sdkModules[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
  },
};

// `import * as fs from 'node:fs'` in each of dozens of files becomes its own copy of the module's every
// property (esbuild's __toESM), made as the bundle starts. One shared namespace per built-in module instead:
// the imports of our own sources go through a module that re-exports it once.
const sharedBuiltins = {
  name: 'shared-builtins',
  setup(build) {
    build.onResolve({ filter: /^node:(fs|path|os|net)$/ }, args => {
      if (args.namespace === 'builtin-namespace' || !/[\\/]src[\\/]/.test(args.importer) || args.kind !== 'import-statement') return undefined;
      return { path: args.path, namespace: 'builtin-namespace' };
    });
    build.onResolve({ filter: /^node:/, namespace: 'builtin-namespace' }, args => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-namespace' }, args => ({ contents: `export * from ${JSON.stringify(args.path)};`, loader: 'js' }));
  },
};

const builds = [
  { ...node, entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...node, entryPoints: { runtime: 'src/runtime/server.ts' }, outdir: 'dist', plugins: [splitLazy(''), sharedBuiltins] },
  // Without whitespace and comments: SDK comments hold non-ASCII characters, which would make V8 keep each
  // whole source as a two-byte string (7.5 MB for the model client) for as long as the runtime lives.
  // Names stay, so stack traces still read; the source maps map lines back. The packages' licence comments
  // go beside each bundle (dist/lazy/*.LEGAL.txt), which the package ships.
  { ...node, entryPoints: LAZY, outdir: 'dist', minifyWhitespace: true, legalComments: 'external', plugins: [splitLazy('lazy/'), sharedSdk] },
  { ...node, entryPoints: LAZY_MODEL, outdir: 'dist', minifyWhitespace: true, legalComments: 'external', inject: ['src/runtime/model/fetchHeaders.ts'], plugins: [splitLazy('lazy/')] },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' }, plugins: [sharedBuiltins] },
  { ...node, entryPoints: { 'fake-anthropic': 'test/fakes/serve.ts' }, outdir: 'dist' },
];
if (existsSync('webview/main.ts')) {
  builds.push({ ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist' });
}
if (existsSync('webview/panel.css')) {
  // The panel's CSS with the codicons it @imports; their font lands next to it as dist/codicon.ttf.
  builds.push({ ...common, entryPoints: { panel: 'webview/panel.css' }, outdir: 'dist', loader: { '.ttf': 'file' }, assetNames: '[name]' });
}
if (existsSync('test/bench/main.ts')) {
  builds.push({ ...node, entryPoints: { bench: 'test/bench/main.ts' }, outdir: 'dist' });
}

/**
 * V8 keeps a script's whole source for as long as it runs, as a two-byte string once it holds one non-ASCII
 * character. esbuild escapes them in code but copies comments as written: in the runtime's and the CLI's
 * bundles a non-ASCII character in a comment line becomes '?', so V8 keeps half the bytes.
 */
function asciiComments(file) {
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/^[ \t]*(\/\/|\/\*|\*).*$/gm, line => line.replace(/[^\x00-\x7f]/gu, '?'));
  if (ascii !== text) writeFileSync(file, ascii);
}

const contexts = await Promise.all(builds.filter(b => b.entryPoints === LAZY || b.entryPoints === LAZY_MODEL || Object.values(b.entryPoints).every(existsSync)).map(b => context(b)));
if (watch) {
  await Promise.all(contexts.map(c => c.watch()));
} else {
  await Promise.all(contexts.map(c => c.rebuild()));
  await Promise.all(contexts.map(c => c.dispose()));
  for (const bundle of ['dist/runtime.js', 'dist/cli.js']) asciiComments(bundle);
}
