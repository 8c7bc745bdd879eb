import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main'
import type { MergedModel } from '../../../src/shared/catalogue/types'

function capture() {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d) => (out += String(d)))
  stderr.on('data', (d) => (err += String(d)))
  return { io: { stdout, stderr, stdin: new PassThrough(), env: {} }, out: () => out, err: () => err }
}

describe('switchboard models / providers', () => {
  it('models <provider> --json prints an array of merged entries', async () => {
    const c = capture()
    expect(await main(['models', 'deepseek', '--json'], c.io)).toBe(0)
    const list = JSON.parse(c.out()) as MergedModel[]
    expect(list.length).toBeGreaterThan(0)
    for (const m of list) expect(m).toMatchObject({ providerId: 'deepseek', source: 'builtin', abilities: expect.any(Object) })
  })

  it('models <provider> prints a table with a count', async () => {
    const c = capture()
    expect(await main(['models', 'anthropic'], c.io)).toBe(0)
    expect(c.out()).toMatch(/^ID\s+TYPE\s+CONTEXT/)
    expect(c.out()).toMatch(/\n11 models\n$/)
  })

  it('an unknown provider is exit code 2 with a message naming it', async () => {
    const c = capture()
    expect(await main(['models', 'nope'], c.io)).toBe(2)
    expect(c.err()).toContain("Unknown provider 'nope'")
  })

  it('providers lists every provider card', async () => {
    const c = capture()
    expect(await main(['providers', '--json'], c.io)).toBe(0)
    expect((JSON.parse(c.out()) as unknown[]).length).toBe(59) // product.md §1's 58 and the built-in engine
  })
})
