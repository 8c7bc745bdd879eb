import { describe, expect, it } from 'vitest'
import { parseAliases } from '../../../src/renderer/features/local-api/local-api-text'

describe('local API aliases as typed in Settings', () => {
  it('reads one alias per line and names a line that is not one', () => {
    expect(parseAliases('fast = openai/gpt-4o-mini\n\n  local=ollama/llama3.2  ')).toEqual({ fast: 'openai/gpt-4o-mini', local: 'ollama/llama3.2' })
    expect(parseAliases('fast = gpt-4o-mini')).toBe('Line 1: write an alias as "name = provider/model".')
    expect(parseAliases('')).toEqual({})
  })
})
