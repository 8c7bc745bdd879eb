import { describe, expect, it } from 'vitest'
import { validateElicitation } from '../../../src/shared/tools/elicitation'
import { preferredModel } from '../../../src/core/tools/tool-service'
import type { ElicitationSchema } from '../../../src/shared/tools/types'

const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ok: { type: 'boolean' },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
    fish: { type: 'array', minItems: 1, maxItems: 2, items: { anyOf: [{ const: 'f1' }, { const: 'f2' }, { const: 'f3' }] } }
  },
  required: ['name']
}

describe('elicitation answers are checked against the requested schema', () => {
  it('accepts a fitting answer', () => {
    expect(validateElicitation(schema, { name: 'Ada', email: 'a@b.co', age: 36, ok: true, hero: 'h1', fish: ['f1'] })).toEqual({})
  })
  it('names each field that does not fit', () => {
    const problems = validateElicitation(schema, { email: 'nope', age: 3.5, ok: 'yes' as unknown as boolean, hero: 'h9', fish: ['f1', 'f2', 'f3'], extra: 'x' })
    expect(Object.keys(problems).sort()).toEqual(['age', 'email', 'extra', 'fish', 'hero', 'name', 'ok'])
    expect(problems['name']).toBe('Name is required.')
    expect(problems['age']).toMatch(/whole number/)
  })
})

describe('a sampling request runs on the chat model unless a hint names another enabled one', () => {
  const chat = { providerId: 'anthropic', modelId: 'claude-sonnet-4-5' }
  const models = [chat, { providerId: 'anthropic', modelId: 'claude-haiku-4-5' }]
  it('matches a hint by name among the provider’s models', () => {
    expect(preferredModel([{ name: 'haiku' }], chat, models)).toEqual(models[1])
  })
  it('the chat model when it matches, or when nothing does', () => {
    expect(preferredModel([{ name: 'sonnet' }, { name: 'haiku' }], chat, models)).toEqual(chat)
    expect(preferredModel([{ name: 'gpt-4o' }], chat, models)).toEqual(chat)
    expect(preferredModel(undefined, chat, models)).toEqual(chat)
  })
})
