// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'

// The layering of docs/architecture.md: shared <- core <- {main, server, cli};
// preload and renderer import only shared. A file's folder tells what it may touch.
const layer = (...names) => names.flatMap((n) => [`**/${n}`, `**/${n}/**`, `@${n}/**`])
const nodeOnly = ['node:*', 'fs', 'path', 'child_process', 'better-sqlite3', 'kysely', '@napi-rs/keyring', 'ws']
const sdkOnly = ['openai', 'openai/**', '@anthropic-ai/sdk', '@anthropic-ai/sdk/**', '@google/genai', 'ollama', 'ollama/**', '@aws-sdk/*']

const restrict = (message, patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }]
})

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', '.tsbuild/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'tests/e2e/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off'
    }
  },
  // The renderer's React code: accessible markup (labels, roles, keyboard) and the rules of hooks.
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    ...jsxA11y.flatConfigs.recommended,
    plugins: { 'jsx-a11y': jsxA11y, 'react-hooks': reactHooks },
    rules: {
      ...jsxA11y.flatConfigs.recommended.rules,
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // Focus moves into a dialog or an inline editor the user just opened (the WAI dialog
      // pattern); a page never takes the focus on load.
      'jsx-a11y/no-autofocus': 'off'
    }
  },
  {
    files: ['src/shared/**'],
    rules: restrict('src/shared runs anywhere: it may not import core, main, preload, renderer, server, cli, Node built-ins or SDKs.', [
      ...layer('core', 'main', 'preload', 'renderer', 'server', 'cli'), 'electron', ...nodeOnly, ...sdkOnly
    ])
  },
  {
    files: ['src/core/**'],
    rules: restrict('src/core is the application without Electron: it may import only shared (never electron, main, preload, renderer, server, cli).', [
      ...layer('main', 'preload', 'renderer', 'server', 'cli'), 'electron', 'electron/**'
    ])
  },
  {
    files: ['src/renderer/**'],
    rules: restrict('The renderer imports only src/shared; everything else goes through the bridge.', [
      ...layer('core', 'main', 'preload', 'server', 'cli'), 'electron', ...nodeOnly, ...sdkOnly
    ])
  },
  {
    files: ['src/preload/**'],
    rules: restrict('The preload exposes the bridge port and nothing else: only electron and src/shared.', [
      ...layer('core', 'main', 'renderer', 'server', 'cli'), ...nodeOnly, ...sdkOnly
    ])
  },
  {
    files: ['src/server/**', 'src/cli/**'],
    rules: restrict('server and cli sit on core; they never import electron, main or renderer.', [
      ...layer('main', 'preload', 'renderer'), 'electron'
    ])
  },
  {
    files: ['src/main/**'],
    rules: restrict('main is the Electron shell: it may use core and shared, never renderer, server or cli.', [
      ...layer('renderer', 'server', 'cli')
    ])
  }
)
