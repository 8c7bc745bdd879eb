import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main'
import { commands } from '../../../src/cli/commands/index'
import { parseServeArgs } from '../../../src/server/options'

const root = resolve(import.meta.dirname, '../../..')

function io() {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: string[] = []
  const err: string[] = []
  stdout.on('data', (c: Buffer) => out.push(c.toString()))
  stderr.on('data', (c: Buffer) => err.push(c.toString()))
  const stdin = Object.assign(new PassThrough(), { isTTY: true })
  return { io: { stdout, stderr, stdin, env: {} as NodeJS.ProcessEnv }, out: () => out.join(''), err: () => err.join('') }
}

// Arguments that would otherwise get each command past its own usage checks.
const valid: Record<string, string[]> = {
  models: ['openai'],
  providers: [],
  pull: ['llama3'],
  ps: [],
  rm: ['llama3'],
  chat: ['openai/gpt-4o-mini', 'hi'],
  embed: ['openai/text-embedding-3-small', 'hi'],
  speak: ['openai/tts-1', '--out', '-', 'hi'],
  transcribe: ['openai/whisper-1', 'a.wav'],
  image: ['openai/dall-e-3', '--out', '/tmp', 'a lighthouse'],
  kb: ['list'],
  builtin: ['list'],
  api: ['keys'],
  sync: ['status'],
  usage: []
}

describe('CLI flags (node:util parseArgs, strict)', () => {
  it('every command refuses a flag it does not know, with exit 2 and a message naming it, before doing anything', async () => {
    expect(commands.map((c) => c.name).sort()).toEqual(Object.keys(valid).sort())
    for (const command of commands) {
      const t = io()
      const code = await main([command.name, ...valid[command.name]!, '--temprature', '0.3'], t.io)
      expect({ command: command.name, code }).toEqual({ command: command.name, code: 2 })
      expect(t.err()).toContain('unknown flag --temprature')
      expect(t.err()).toContain(`Usage: ${command.usage}`)
      expect(t.out()).toBe('')
    }
  })

  it('a value flag without its value, and a value given to a switch, are usage errors too', async () => {
    const missing = io()
    expect(await main(['chat', 'openai/gpt-4o-mini', 'hi', '--temperature'], missing.io)).toBe(2)
    expect(missing.err()).toContain('--temperature needs a value')
    const extra = io()
    expect(await main(['providers', '--json=yes'], extra.io)).toBe(2)
    expect(extra.err()).toContain('--json takes no value')
  })

  it('known flags still parse in both spellings (--type=image, --json)', async () => {
    const a = io()
    expect(await main(['providers', '--json'], a.io)).toBe(0)
    expect(JSON.parse(a.out())).toHaveLength(59)
    const b = io()
    expect(await main(['models', 'openai', '--type=image', '--json'], b.io)).toBe(0)
    expect((JSON.parse(b.out()) as Array<{ type: string }>).every((m) => m.type === 'image')).toBe(true)
  })

  it('npm run serve parses its options the same way: an unknown one or a missing value is named', () => {
    expect(parseServeArgs(['--prot', '80'], {})).toEqual({ error: expect.stringMatching(/^Unknown option --prot\./) })
    expect(parseServeArgs(['--port'], {})).toEqual({ error: '--port needs a value.' })
    expect(parseServeArgs(['--port=0', '--token=abcdefabcdefabcdef'], {})).toMatchObject({ port: 0, token: 'abcdefabcdefabcdef' })
  })

  it('the built command exits 2 on an unknown flag as a real process', async () => {
    const bin = join(root, 'bin/switchboard.mjs')
    expect(existsSync(join(root, 'out/main/cli.js'))).toBe(true)
    const failed = await promisify(execFile)(process.execPath, [bin, 'providers', '--jsn'], { cwd: root }).catch((e: { code: number; stderr: string }) => e)
    expect(failed).toMatchObject({ code: 2 })
    expect((failed as { stderr: string }).stderr).toMatch(/switchboard providers: unknown flag --jsn/)
  })
})
