// eslint: the layer rules (scripts/lint/layers.mjs) over src/ and webview/, and no default exports.
// `npm run lint`; a stage of `npm test`.
import tsParser from '@typescript-eslint/parser';
import { layersPlugin } from './scripts/lint/layers.mjs';

export const config = [
  { ignores: ['**/*', '!src/', '!src/**', '!webview/', '!webview/**'] },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { layers: layersPlugin },
    rules: {
      'layers/imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Named exports only (house style).' }],
    },
  },
];

// eslint reads the default export of its config file; the house's "no default exports" is for src/.
export default config;
