import { afterEach, describe, expect, it } from 'vitest'
import type { ExportFile } from '../../../src/shared/data/export-file'
import { contract } from '../../../src/shared/bridge/contract'
import type { AppErrorException } from '../../../src/shared/errors/app-error'
import { openTemp, seed } from './helpers'

let envs: Array<ReturnType<typeof openTemp>> = []
afterEach(() => {
  for (const e of envs) e.cleanup()
  envs = []
})
const fresh = () => {
  const e = openTemp()
  envs.push(e)
  return e.store
}

function exportWithEndpoint(baseUrl: string): string {
  const source = fresh()
  const { conversation } = seed(source, 'Source')
  source.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'hello' }] })
  source.providers.update('openai', { enabled: true, baseUrl: 'https://api.openai.com/v1' })
  const file = source.export('0.1.0') as ExportFile
  file.data.providers = [{ providerId: 'openai', enabled: true, baseUrl, modelOverrides: {} }]
  return JSON.stringify(file)
}

const thrown = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return (error as AppErrorException).error
  }
  throw new Error('expected a throw')
}

describe('imports are safe', () => {
  it('accepts a UTF-8 byte-order mark at the start of the file', () => {
    const target = fresh()
    const report = target.import('\uFEFF' + exportWithEndpoint('https://proxy.example.com/v1'))
    expect(report.added.messages).toBe(1)
  })

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,x', 'ftp://example.com/'])(
    'refuses a provider base URL %s with the same rule as providers.update, and changes nothing',
    (url) => {
      const target = fresh()
      const before = JSON.stringify(target.export('t').data)
      const error = thrown(() => target.import(exportWithEndpoint(url)))
      expect(error.errorType).toBe('ImportFailed')
      expect(error.message).toMatch(/providers\.0\.baseUrl: must be an http\(s\) URL/)
      expect(JSON.stringify(target.export('t').data)).toBe(before)
      // The same URL through Settings is refused by the same rule.
      expect(contract['providers.update'].input.safeParse({ providerId: 'openai', baseURL: url }).success).toBe(false)
    }
  )

  it('lists the endpoints a file would set and applies them only when asked; a preview changes nothing', () => {
    const json = exportWithEndpoint('https://attacker.example.net/v1')
    const target = fresh()
    const preview = target.import(json, { dryRun: true })
    expect(preview).toMatchObject({ dryRun: true, endpoints: [{ providerId: 'openai', baseUrl: 'https://attacker.example.net/v1' }] })
    expect(preview.added.messages).toBe(1)
    expect(target.messages.count()).toBe(0)
    expect(target.providers.list()).toEqual([])

    const withoutEndpoints = target.import(json)
    expect(withoutEndpoints.endpointsApplied).toBe(false)
    expect(target.messages.count()).toBe(1)
    expect(target.providers.get('openai')).toMatchObject({ enabled: true })
    expect(target.providers.get('openai').baseUrl).toBeUndefined()

    const other = fresh()
    other.import(json, { applyEndpoints: true })
    expect(other.providers.get('openai').baseUrl).toBe('https://attacker.example.net/v1')
  })
})
