// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'
import { readdirSync } from 'node:fs'

// The layering of docs/architecture.md: shared <- core <- {main, server, cli};
// preload and renderer import only shared. A file's folder tells what it may touch.
const layer = (...names) => names.flatMap((n) => [`**/${n}`, `**/${n}/**`, `@${n}/**`])
const nodeOnly = ['node:*', 'fs', 'path', 'child_process', 'better-sqlite3', 'kysely', '@napi-rs/keyring', 'ws']
const sdkOnly = ['openai', 'openai/**', '@anthropic-ai/sdk', '@anthropic-ai/sdk/**', '@google/genai', 'ollama', 'ollama/**', '@aws-sdk/*']

const restrict = (message, patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }]
})

const rendererLayer = {
  group: [...layer('core', 'main', 'preload', 'server', 'cli'), 'electron', ...nodeOnly, ...sdkOnly],
  message: 'The renderer imports only src/shared; everything else goes through the bridge.'
}

// Renderer features depend one way: a feature may import components/, stores/, shared/ and the
// features listed before it here, never one listed after it, so no two features import each
// other. The pages that compose others (chat; settings and the palette, which also use chat's
// model picker and conversations) come last. A new folder in features/ must be placed here.
const FEATURES = ['providers', 'data', 'search', 'artifacts', 'usage', 'tools', 'knowledge', 'images', 'local-models', 'voice', 'attachments', 'local-api', 'sync', 'chat', 'settings', 'palette']
const unplaced = readdirSync(new URL('./src/renderer/features', import.meta.url)).filter((f) => !FEATURES.includes(f))
if (unplaced.length) throw new Error(`eslint.config.js: place the renderer feature(s) ${unplaced.join(', ')} in FEATURES (which features may they use?)`)
const featureRules = FEATURES.map((feature, i) => {
  const later = FEATURES.slice(i + 1)
  return {
    files: [`src/renderer/features/${feature}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            rendererLayer,
            ...(later.length
              ? [{ regex: `^(\\.\\./)+(${later.join('|')})(/|$)`, message: `Renderer features depend one way (eslint.config.js FEATURES): ${feature} may not import ${later.join(', ')}. Move what both need to components/ or a shared store.` }]
              : [])
          ]
        }
      ]
    }
  }
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
    rules: { 'no-restricted-imports': ['error', { patterns: [rendererLayer] }] }
  },
  // components/ and stores/ sit under every feature: they import none (the app shell, app.tsx and
  // sidebar.tsx, composes the features).
  {
    files: ['src/renderer/components/**', 'src/renderer/stores/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [rendererLayer, { regex: '^(\\.\\./)+features/', message: 'components/ and stores/ are used by features and import none of them.' }] }]
    }
  },
  ...featureRules,
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
  // The CLI's entry and its command files are what `switchboard --help` loads: they import the
  // core (runtime, SDKs, store) inside a command's run(), never statically (types are free).
  {
    files: ['src/cli/main.ts', 'src/cli/command.ts', 'src/cli/commands/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [...layer('main', 'preload', 'renderer'), 'electron'], message: 'server and cli sit on core; they never import electron, main or renderer.' },
            {
              group: ['**/core/**', '!**/core/version'],
              allowTypeImports: true,
              message: "A CLI command imports the core inside run() (await import(...)): statically it would load for 'switchboard --help' (tests/unit/cli/cli-startup-graph.test.ts)."
            }
          ]
        }
      ]
    }
  },
  {
    files: ['src/main/**'],
    rules: restrict('main is the Electron shell: it may use core and shared, never renderer, server or cli.', [
      ...layer('renderer', 'server', 'cli')
    ])
  }
)
