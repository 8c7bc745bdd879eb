#!/usr/bin/env node
// @ts-check
// Installs one target's native packages (keychain, sqlite-vec, the engine's prebuilt), which npm
// otherwise installs only for the machine it runs on, at the lockfile's versions, without
// changing package.json or the lockfile. Run it before `electron-builder --<os> --<arch>`:
//   node scripts/packaging/install-target.mjs darwin arm64
//   npx electron-builder --mac --arm64
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { missingComponents, nodePlatform, targetPackages } from './native-targets.mjs'

const [os, arch] = process.argv.slice(2)
if (!os || !arch) {
  console.error('Usage: node scripts/packaging/install-target.mjs <darwin|win32|linux> <x64|arm64>')
  process.exit(2)
}
const missing = missingComponents(os, arch)
if (missing.length > 0) {
  console.error(`${nodePlatform(os)} ${arch} cannot be packaged: no published build of ${missing.join(', ')}.`)
  process.exit(1)
}
const lock = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package-lock.json'), 'utf8'))
const packages = targetPackages(os, arch, lock)
console.log(`Installing for ${nodePlatform(os)} ${arch}: ${packages.join(' ')}`)
// --force: npm refuses a package whose os/cpu is not this machine's; here that is the point.
execFileSync('npm', ['install', '--no-save', '--force', '--ignore-scripts', ...packages], { stdio: 'inherit', shell: process.platform === 'win32' })
