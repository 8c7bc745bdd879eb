import { describe, expect, it } from 'vitest'
import { agentExamples, parseAliases } from '../../../src/renderer/features/local-api/local-api-text'

describe('local API aliases as typed in Settings', () => {
  it('reads one alias per line and names a line that is not one', () => {
    expect(parseAliases('fast = openai/gpt-4o-mini\n\n  local=ollama/llama3.2  ')).toEqual({ fast: 'openai/gpt-4o-mini', local: 'ollama/llama3.2' })
    expect(parseAliases('fast = gpt-4o-mini')).toBe('Line 1: write an alias as "name = provider/model".')
    expect(parseAliases('')).toEqual({})
  })
})

describe('the coding agents’ set-up lines', () => {
  const byId = (id: string) => agentExamples('http://127.0.0.1:4010', 'sb-KEY', 'anthropic/claude-sonnet-5').find((e) => e.id === id)!.code

  it('Claude Code: the Anthropic base URL at the root, the key and the model as environment variables', () => {
    const lines = byId('claude-code').split('\n')
    expect(lines).toContain('export ANTHROPIC_BASE_URL=http://127.0.0.1:4010')
    expect(lines).toContain('export ANTHROPIC_API_KEY=sb-KEY')
    expect(lines).toContain('export ANTHROPIC_MODEL=anthropic/claude-sonnet-5')
  })

  it('Codex: a custom provider on the Responses API at /v1, its key from the variable it names', () => {
    const code = byId('codex')
    expect(code).toContain('base_url = "http://127.0.0.1:4010/v1"')
    expect(code).toContain('wire_api = "responses"')
    expect(code).toContain('env_key = "SWITCHBOARD_API_KEY"')
    expect(code).toContain('export SWITCHBOARD_API_KEY=sb-KEY')
  })
})
