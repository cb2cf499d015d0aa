// The layer rules of ARCHITECTURE.md as an eslint rule: which folders and packages each part of src/ and
// webview/ may import. An allow-list per layer, so a new folder or package is a decision, not an accident.
// Relative specifiers are resolved against the importing file, so the rule sees where an import lands
// however many `../` it takes.
import { dirname, join, relative, resolve } from 'node:path';

const NODE = /^node:/;
const SDKS = /^(@anthropic-ai\/|google-auth-library$)/;

/**
 * Each layer: the files it covers (a path prefix from the repository root, first match wins), the folders
 * its relative imports may reach, and the packages it may import.
 */
export const LAYERS = [
  { layer: 'src/common', files: 'src/common/', folders: ['src/common/'], packages: [],
    why: 'shared by every process, the webview included: plain TypeScript, neither vscode nor Node nor packages' },
  { layer: 'webview', files: 'webview/', folders: ['webview/', 'src/common/'], packages: [],
    why: 'untrusted page content: it speaks only the message types of src/common' },
  { layer: 'src/ipc', files: 'src/ipc/', folders: ['src/ipc/', 'src/common/'], packages: [NODE],
    why: 'socket paths and private files, shared by host, CLI and runtime: it knows none of them' },
  { layer: 'src/runtime/model', files: 'src/runtime/model/', folders: ['src/runtime/', 'src/common/', 'src/ipc/'], packages: [NODE, SDKS, /^undici$/],
    why: 'the model clients: the only place the Anthropic SDKs are imported' },
  { layer: 'src/runtime', files: 'src/runtime/', folders: ['src/runtime/', 'src/common/', 'src/ipc/'],
    packages: [NODE, /^undici$/, /^vscode-jsonrpc(\/|$)/, /^@modelcontextprotocol\/sdk(\/|$)/, /^ignore$/, /^picomatch$/],
    why: 'the detached runtime: never the editor (vscode, src/host), never its clients, SDKs only through src/runtime/model' },
  { layer: 'src/client', files: 'src/client/', folders: ['src/client/', 'src/common/', 'src/ipc/'], packages: [NODE, /^vscode-jsonrpc(\/|$)/, /^jsonc-parser$/],
    why: 'how host and CLI reach the runtime: no vscode, no runtime code' },
  { layer: 'src/cli', files: 'src/cli/', folders: ['src/cli/', 'src/client/', 'src/common/', 'src/ipc/'], packages: [NODE, /^jsonc-parser$/],
    why: 'the headless CLI, a client of the runtime like the host: no vscode, no runtime code' },
  { layer: 'src/host', files: 'src/host/', folders: ['src/host/', 'src/client/', 'src/common/', 'src/ipc/'],
    packages: [NODE, /^vscode$/, /^vscode-languageclient(\/|$)/, /^markdown-it(\/|$)/],
    why: 'the extension host: it drives the runtime over the protocol, never by importing it' },
  { layer: 'src/extension.ts', files: 'src/extension.ts', folders: ['src/host/', 'src/common/'], packages: [/^vscode$/],
    why: 'activate() wiring only' },
];

function layerOf(file) {
  return LAYERS.find(l => file === l.files || file.startsWith(l.files));
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports stay inside the layers ARCHITECTURE.md draws' },
    schema: [],
    messages: {
      folder: '{{layer}} may not import {{target}} ({{why}}).',
      package: '{{layer}} may not import the package "{{spec}}" ({{why}}).',
    },
  },
  create(context) {
    const root = context.cwd;
    const file = relative(root, context.filename).split('\\').join('/');
    const layer = layerOf(file);
    if (!layer) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      if (spec.startsWith('.')) {
        const target = relative(root, resolve(dirname(join(root, file)), spec)).split('\\').join('/');
        const landsIn = folder => target.startsWith(folder) || `${target}/` === folder;
        if (!layer.folders.some(landsIn)) context.report({ node, messageId: 'folder', data: { layer: layer.layer, target, why: layer.why } });
      } else if (!layer.packages.some(pattern => pattern.test(spec))) {
        context.report({ node, messageId: 'package', data: { layer: layer.layer, spec, why: layer.why } });
      }
    };
    const fromSource = node => node.source && check(node.source, node.source.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: node => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportType: node => {
        const literal = node.argument?.literal ?? node.argument;
        if (literal?.type === 'Literal') check(literal, literal.value);
      },
      CallExpression: node => {
        const [arg] = node.arguments;
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && arg?.type === 'Literal') check(arg, arg.value);
      },
    };
  },
};

export const layersPlugin = { meta: { name: 'fork-agents-layers' }, rules: { imports: rule } };
