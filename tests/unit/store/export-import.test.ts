import { afterEach, describe, expect, it } from 'vitest'
import { EXPORT_VERSION, FILE_INCOMPATIBLE_MESSAGE, type ExportFile } from '../../../src/shared/data/export-file'
import { AppErrorException } from '../../../src/shared/errors/app-error'
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
const failure = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(AppErrorException)
    return (error as AppErrorException).error
  }
  throw new Error('expected a failure')
}
/** Everything a user would lose: compare before and after a failed import. */
const snapshot = (store: ReturnType<typeof fresh>) => JSON.stringify(store.export('test').data)

function populated() {
  const store = fresh()
  const { agent, conversation } = seed(store, 'Writer')
  store.agents.update(agent.id, { systemPrompt: 'Write well.', tags: ['prose'], parameters: { temperature: 0.7 } })
  const topic = store.conversations.createTopic(conversation.id, 'Drafts')
  const q = store.messages.create({ conversationId: conversation.id, topicId: topic.id, role: 'user', content: [{ type: 'text', text: 'Draft a haiku' }] })
  const writer = store.messages.beginStreaming({ conversationId: conversation.id, parentId: q.id, providerId: 'openai', modelId: 'gpt' })
  writer.appendText('Autumn moonlight—')
  writer.finish('complete', { usage: { totalTokens: 9 }, cost: { currency: 'USD', total: 0.0001 } })
  const streaming = store.messages.beginStreaming({ conversationId: conversation.id, parentId: q.id })
  streaming.appendText('unfinished')
  streaming.flush()
  store.settings.set({ searchMaxUses: 3, titleModel: { providerId: 'openai', modelId: 'gpt-4o-mini' } })
  store.providers.update('ollama', { enabled: true, baseUrl: 'http://127.0.0.1:11434', modelOverrides: { 'llama3:8b': { enabled: true } } })
  return { store, agent, conversation, streamingId: streaming.id }
}

describe('export and import', () => {
  it('round-trips agents, conversations, topics, messages and settings into another database', () => {
    const { store, streamingId } = populated()
    const file = store.export('0.1.0')
    expect(file).toMatchObject({ format: 'switchboard-export', version: EXPORT_VERSION, appVersion: '0.1.0' })
    const target = fresh()
    const report = target.import(JSON.stringify(file), { applyEndpoints: true })
    expect(report.added).toEqual({ agents: 1, conversations: 1, topics: 1, messages: 3, settings: 2, providers: 1 })
    const again = target.export('0.1.0')
    // A reply streaming at export time arrives as interrupted; everything else is identical.
    const expected = structuredClone(file.data)
    expected.messages.find((m) => m.id === streamingId)!.status = 'interrupted'
    expect(again.data).toEqual(expected)
    expect(target.search.search('moonlight')).toHaveLength(1)
  })

  it('importing twice adds nothing the second time and keeps existing values', () => {
    const { store } = populated()
    const json = JSON.stringify(store.export('x'))
    const target = fresh()
    target.settings.set({ searchMaxUses: 7 })
    target.import(json)
    const second = target.import(json)
    expect(second.added).toEqual({ agents: 0, conversations: 0, topics: 0, messages: 0, settings: 0, providers: 0 })
    expect(second.skipped).toMatchObject({ agents: 1, messages: 3 })
    expect(target.settings.get()['searchMaxUses']).toBe(7)
  })

  it('a file from a newer version fails with the file-incompatible text and changes nothing', () => {
    const { store } = populated()
    const target = fresh()
    seed(target, 'Existing')
    const before = snapshot(target)
    const file = { ...store.export('9.0.0'), version: EXPORT_VERSION + 1 }
    const error = failure(() => target.import(JSON.stringify(file)))
    expect(error.errorType).toBe('FileIncompatible')
    expect(error.message).toBe(FILE_INCOMPATIBLE_MESSAGE)
    expect(snapshot(target)).toBe(before)
  })

  it('a truncated file fails, says why, and changes nothing', () => {
    const { store } = populated()
    const target = fresh()
    seed(target, 'Existing')
    const before = snapshot(target)
    const json = JSON.stringify(store.export('x'))
    for (const cut of [json.length - 1, Math.floor(json.length / 2), 10]) {
      const error = failure(() => target.import(json.slice(0, cut)))
      expect(error.errorType).toBe('ImportFailed')
      expect(error.message).toMatch(/^Import failed: .*not valid JSON.*truncated.*Nothing was changed/)
    }
    expect(snapshot(target)).toBe(before)
  })

  it('a malformed file names the bad field and changes nothing', () => {
    const { store } = populated()
    const target = fresh()
    const before = snapshot(target)
    const file = store.export('x') as ExportFile
    ;(file.data.messages[1] as { role: string }).role = 'wizard'
    const error = failure(() => target.import(JSON.stringify(file)))
    expect(error.message).toMatch(/^Import failed: data\.messages\.1\.role: .*Nothing was changed/)
    expect(snapshot(target)).toBe(before)
    expect(failure(() => target.import('{"hello":1}')).message).toMatch(/not a Switchboard export file/)
  })

  it('fails as a whole when a late row is bad: earlier rows of the same file are rolled back', () => {
    const { store } = populated()
    const target = fresh()
    const before = snapshot(target)
    const file = store.export('x')
    // Valid by shape, but this message points at a conversation that exists nowhere:
    // agents and conversations before it were already inserted inside the transaction.
    file.data.messages.push({ ...file.data.messages[0]!, id: 'orphan', conversationId: 'missing-conversation' })
    const error = failure(() => target.import(JSON.stringify(file)))
    expect(error.message).toMatch(/missing-conversation.*Nothing was changed/)
    expect(snapshot(target)).toBe(before)
    expect(target.agents.list()).toEqual([])
  })

  it('exports provider settings without keys or fetched model lists, and never secret-like settings', () => {
    const { store } = populated()
    store.providers.update('openai', { enabled: true, baseUrl: 'https://example.com/v1', fetchedModels: [{ id: 'fetched-model-x' }] })
    const file = store.export('x')
    expect(file.data.providers).toContainEqual({ providerId: 'openai', enabled: true, baseUrl: 'https://example.com/v1', modelOverrides: {} })
    const json = JSON.stringify(file)
    expect(json).not.toMatch(/apiKey|api_key|secret/i)
    expect(json).not.toContain('fetched-model-x')
  })

  it('settings that are not the app’s (unknown keys, wrong shapes) are left out and reported', () => {
    const { store } = populated()
    const file = store.export('x')
    file.data.settings = { ...file.data.settings, theme: 'dark', searchMaxResults: 'many' }
    const target = fresh()
    const report = target.import(JSON.stringify(file))
    expect(report.refusedSettings?.map((r) => r.key).sort()).toEqual(['searchMaxResults', 'theme'])
    expect(Object.keys(target.settings.get()).sort()).toEqual(['searchMaxUses', 'titleModel'])
  })
})
