import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { collect, errorOf } from './helpers'

// Ollama pointed at a server of another kind (an OpenAI-style one): its JSON error is an object,
// which the ollama client turned into "[object Object]"; the user sees the server's own words.
let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(() => fake.close())

describe('Ollama against a server of the wrong kind', () => {
  it('says what the server said', async () => {
    fake.setDefault('/api/chat', { kind: 'json', status: 404, body: errorBody('Unknown request URL: POST /api/chat', 'invalid_request_error') })
    const events = await collect(createProviderRuntime('ollama', { baseURL: fake.url }), { model: 'llama3.2' }, { maxRetries: 0 })
    const error = errorOf(events)!
    expect(error.message).not.toMatch(/object Object/)
    expect(error.message).toContain('Unknown request URL: POST /api/chat')
  })
})
