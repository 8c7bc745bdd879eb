#!/usr/bin/env node
// The `switchboard` command: runs the CLI built by `npm run build` (out/main/cli.js, built with
// main and the browser-mode server in one electron-vite config). No TypeScript loader at run time.
import { existsSync } from 'node:fs'

const entry = new URL('../out/main/cli.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write("switchboard: the CLI is not built yet. Run 'npm run build' in the Switchboard folder first.\n")
  process.exit(1)
}
process.env.SWITCHBOARD_CLI_ENTRY = '1'
await import(entry.href)
