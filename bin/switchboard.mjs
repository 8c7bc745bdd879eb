#!/usr/bin/env node
// The `switchboard` command. Runs the TypeScript sources through tsx so `npx switchboard`
// works right after `npm install`, without a build step.
import { register } from 'tsx/esm/api'
import { fileURLToPath } from 'node:url'

register()
process.env.SWITCHBOARD_CLI_ENTRY = '1'
await import(fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)))
