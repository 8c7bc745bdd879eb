import { defineConfig } from '@playwright/test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// End-to-end tests drive the real app in browser mode (the built `out/main/server.js`; `npm test` builds first): the real core,
// a real database in a temporary folder, and fake provider servers on 127.0.0.1.
// Playwright's own browser cannot be downloaded here, so the system Chromium is used.
export const E2E_TOKEN = 'e2e-token-0123456789abcdef'
export const E2E_PASSWORD = 'e2e access password'
const PORT = Number(process.env['E2E_PORT'] ?? 5391)
const LOCKED_PORT = PORT + 1
const dataRoot = process.env['E2E_DATA_DIR'] ?? mkdtempSync(join(tmpdir(), 'switchboard-e2e-'))
process.env['E2E_DATA_DIR'] = dataRoot

const server = (port: number, extraEnv: Record<string, string>, data: string) => ({
  command: `node out/main/server.js --port ${port} --token ${E2E_TOKEN}`,
  url: `http://127.0.0.1:${port}/healthz`,
  reuseExistingServer: false,
  timeout: 60_000,
  // The access password comes from the environment, as the README recommends (not `ps`-visible).
  env: { SWITCHBOARD_DATA_DIR: join(dataRoot, data), E2E: '1', ...extraEnv },
  stdout: 'pipe' as const,
  stderr: 'pipe' as const
})

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.e2e.ts',
  // `npm test` runs the specs as shards, each with its own ports, folders and report (scripts/test-all.mjs).
  outputDir: process.env['E2E_OUTPUT_DIR'] ?? 'test-results/e2e',
  fullyParallel: false,
  workers: 1,
  // In CI one retry, reported as "flaky" in the list and the JSON report (never hidden): a red run
  // blocks the whole change on a timing fluke of a loaded two-core machine.
  retries: process.env['CI'] ? 1 : 0,
  timeout: 60_000,
  reporter: [['list'], ['json', { outputFile: process.env['E2E_REPORT'] ?? 'test-results/e2e-report.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    // Bounded, so a stuck click or reload fails where it is stuck instead of as a test timeout.
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream'
      ]
    }
  },
  webServer: [server(PORT, {}, 'main'), server(LOCKED_PORT, { SWITCHBOARD_ACCESS_PASSWORD: E2E_PASSWORD }, 'locked')]
})
