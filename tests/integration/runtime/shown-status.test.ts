import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { shownErrorStatus } from '../../../src/shared/errors/catalogue'
import { errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { SECRET, collect, errorOf } from './helpers'

// An HTTP 500 is shown as 500: the error card said "ProviderServiceUnavailable, status 503",
// a status the server never sent (503 is the catalogue's status for the type).
let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(() => fake.close())

describe('the status the user sees', () => {
  it('is the one the provider answered', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 500, body: errorBody('Internal server error', 'server_error') })
    const events = await collect(createProviderRuntime('openai', { apiKey: SECRET, baseURL: fake.url }), {}, { maxRetries: 0 })
    const error = errorOf(events)!
    expect(error.errorType).toBe('ProviderServiceUnavailable')
    expect(shownErrorStatus(error)).toBe(500)
  })

  it('is the catalogue status when the provider sent none', () => {
    expect(shownErrorStatus({ status: 472, detail: { code: 'ECONNREFUSED' } })).toBe(472)
  })
})
