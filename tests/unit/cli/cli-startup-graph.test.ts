import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/**
 * What the quick CLI commands load, checked by the module graph rather than by a timing: the
 * built `switchboard` runs under a hook that records every module resolved (import and require),
 * and none of the heavy ones may be among them. Each command imports what it uses when it runs,
 * so listing commands or the catalogue opens no store and loads no SDK.
 */
const root = resolve(import.meta.dirname, '../../..')
const bin = join(root, 'bin/switchboard.mjs')
const recorder = pathToFileURL(join(root, 'tests/fixtures/module-graph/record.mjs')).href

const HEAVY = [
  '@modelcontextprotocol/sdk',
  'better-sqlite3',
  'sqlite-vec',
  'linkedom',
  '@mozilla/readability',
  'turndown',
  'unpdf',
  'mammoth',
  'openai',
  '@anthropic-ai/sdk',
  '@google/genai',
  '@aws-sdk',
  'ollama',
  'node-llama-cpp',
  'pg',
  'webdav',
  'electron'
]

async function loaded(args: string[]): Promise<string[]> {
  const out = join(mkdtempSync(join(tmpdir(), 'sb-graph-')), 'modules.txt')
  await promisify(execFile)(process.execPath, ['--import', recorder, bin, ...args], { cwd: root, env: { ...process.env, MODULE_GRAPH_OUT: out }, maxBuffer: 1 << 24 })
  return readFileSync(out, 'utf8').split('\n').filter(Boolean)
}

const heavyIn = (urls: string[]) => urls.filter((url) => HEAVY.some((name) => url.includes(`/node_modules/${name}/`) || url === name || url.startsWith(`${name}/`)))
const builtBytes = (urls: string[]) =>
  urls.filter((u) => u.startsWith('file:') && u.includes('/out/main/')).reduce((n, u) => n + statSync(fileURLToPath(u)).size, 0)

describe('switchboard start-up: the module graph of the quick commands', () => {
  it('--help loads the CLI entry and none of the heavy modules (SDKs, store, MCP, HTML/PDF readers)', async () => {
    const urls = await loaded(['--help'])
    expect(urls.some((u) => u.endsWith('/out/main/cli.js'))).toBe(true)
    expect(heavyIn(urls)).toEqual([])
    // The CLI's own code it reads to print the help stays small (the whole core is over 1 MB).
    expect(builtBytes(urls)).toBeLessThan(150 * 1024)
  })

  it('providers and models (the built-in catalogue) open no store and load no SDK', async () => {
    for (const args of [['providers'], ['models', 'openai']]) {
      const urls = await loaded(args)
      expect(urls.some((u) => u.endsWith('/out/main/cli.js'))).toBe(true)
      expect(heavyIn(urls), args.join(' ')).toEqual([])
    }
  })

  it('the recorder sees what a command really loads: chat to an unreachable server loads the OpenAI SDK', async () => {
    // Guards the two tests above against a recorder that sees nothing.
    const out = join(mkdtempSync(join(tmpdir(), 'sb-graph-')), 'modules.txt')
    await promisify(execFile)(process.execPath, ['--import', recorder, bin, 'chat', 'openai/gpt-4o-mini', '--base-url', 'http://127.0.0.1:9/v1', 'hi'], {
      cwd: root,
      env: { ...process.env, MODULE_GRAPH_OUT: out, OPENAI_API_KEY: 'sk-test' }
    }).catch(() => undefined)
    const urls = readFileSync(out, 'utf8').split('\n')
    expect(heavyIn(urls).some((u) => u.includes('/node_modules/openai/'))).toBe(true)
  })
})
