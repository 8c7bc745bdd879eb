import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    // Builds out/ first when it is missing or stale (tests run the built CLI and preload); one
    // temporary folder per run, removed after it (tests/temp-root.ts).
    globalSetup: ['tests/build-once.ts', 'tests/temp-root.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two at a time even on a two-core machine (Vitest's default there is one): most files wait on
    // child processes, servers and timers rather than the CPU, so the suite takes much less time.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default']
  }
})
