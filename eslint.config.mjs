// ESLint: typescript-eslint's recommended rules everywhere, and a fence around
// workflows/: workflow code is replayed, so it may not reach Node, the network, the database
// or anything else non-deterministic; it depends on its own contract types only.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.data/', '.cluster/', '.tmp/', '.venv-contract/', 'drizzle/', 'src/client/*-api.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_`-prefixed names are deliberately unused (a destructured field left out, a handler's unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A `let` a closure reads before its one assignment (a late-bound dependency) cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The consoles' one page script runs in the browser.
    files: ['src/console/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['workflows/**/*.ts', 'scripts/**/*.workflows.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code is replayed: no Node built-ins (do it in an activity).' })),
            ...['@temporalio/client', '@temporalio/worker', '@temporalio/activity'].map((name) => ({
              name,
              message: 'Workflows use @temporalio/workflow only; the client and worker sides live in src/temporal and worker/.',
            })),
          ],
          patterns: [
            {
              group: ['pg', 'drizzle-orm', 'drizzle-orm/*', 'pino', 'hono', 'hono/*', '@hono/*', 'undici', 'dinero.js'],
              message: 'Workflow code is replayed: no database, network or logging libraries (use an activity, or `log` from @temporalio/workflow).',
            },
            {
              group: ['../src/*', '../src/**', '../activities', '../activities/*', '../worker', '../worker/*'],
              allowTypeImports: true,
              message: 'Workflows depend on their own contract types only: import types, never code, from the engine.',
            },
          ],
        },
      ],
      // The workflows' modules are evaluated once per worker and shared by every workflow it runs
      // (WORKFLOW_BUNDLE_OPTIONS in worker/worker.ts): nothing at module scope may hold state.
      'no-restricted-syntax': [
        'error',
        ...['Program > VariableDeclaration', 'Program > ExportNamedDeclaration > VariableDeclaration'].flatMap((at) => [
          {
            selector: `${at}[kind!='const']`,
            message: 'Workflow modules are shared by every workflow of a worker: no `let` or `var` at module scope (keep state inside the workflow function).',
          },
          {
            selector: `${at} > VariableDeclarator > NewExpression[callee.name=/^(Map|Set|WeakMap|WeakSet)$/]`,
            message: 'Workflow modules are shared by every workflow of a worker: no Map or Set at module scope (keep state inside the workflow function).',
          },
        ]),
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'fetch', 'require', 'setInterval', 'setImmediate', 'performance', 'crypto', 'Buffer'].map((name) => ({
          name,
          message: 'Workflow code is replayed: use @temporalio/workflow (sleep, uuid4, condition) or an activity instead.',
        })),
      ],
    },
  },
  {
    // Tests read answers as the JSON they are; typing every body would only restate the OpenAPI documents.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
