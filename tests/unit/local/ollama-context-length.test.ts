import { describe, expect, it } from 'vitest'
import { contextLengthOf, modelInfoNumber } from '../../../src/core/runtime/providers/ollama/ollama-client'

// One parser of /api/show's model_info for the chat runtime (num_ctx) and the model manager
// (the details panel). The runtime used to read only `<architecture>.context_length` and missed
// models whose keys use another prefix, which the manager already found.
describe('context length from /api/show', () => {
  it('reads <architecture>.context_length', () => {
    expect(contextLengthOf({ model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } as never })).toBe(131072)
  })

  it('falls back to any *.context_length when the architecture prefix differs (e.g. a vision variant)', () => {
    const model_info = { 'general.architecture': 'qwen25vl', 'qwen2.context_length': 32768, 'qwen2.embedding_length': 3584 } as never
    expect(contextLengthOf({ model_info })).toBe(32768)
    expect(modelInfoNumber(model_info, 'embedding_length')).toBe(3584)
  })

  it('is undefined when the server does not say (old servers send no model_info)', () => {
    expect(contextLengthOf({ model_info: undefined as never })).toBeUndefined()
    expect(contextLengthOf({ model_info: { 'general.architecture': 'llama', 'llama.context_length': '8192' } as never })).toBeUndefined()
  })
})
