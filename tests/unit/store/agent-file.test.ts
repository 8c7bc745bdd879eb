import { describe, expect, it } from 'vitest'
import { agentFileName, agentToFile } from '../../../src/shared/data/agent-file'
import { parseAgentFile } from '../../../src/shared/data/agent-file-schema'
import type { Agent } from '../../../src/shared/data/agent'

const agent: Agent = {
  id: 'a1',
  name: 'Reviewer',
  avatar: '🧐',
  systemPrompt: 'Review the code.',
  providerId: 'openai',
  modelId: 'gpt-4o',
  parameters: { temperature: 0.2 },
  tags: ['code'],
  createdAt: 1,
  updatedAt: 2
}

describe('the agent file', () => {
  it('round-trips what defines the agent, without its id or dates', () => {
    const file = agentToFile(agent, 5)
    expect(file).toEqual({
      format: 'switchboard-agent',
      version: 1,
      exportedAt: 5,
      agent: { name: 'Reviewer', avatar: '🧐', systemPrompt: 'Review the code.', providerId: 'openai', modelId: 'gpt-4o', parameters: { temperature: 0.2 }, tags: ['code'] }
    })
    expect(parseAgentFile('\uFEFF' + JSON.stringify(file))).toEqual({ ok: true, agent: file.agent })
    expect(agentFileName('Re/view:er ✓')).toBe('Reviewer.switchboard-agent.json')
    expect(agentFileName('../..')).toBe('agent.switchboard-agent.json')
  })

  it('says ImportFailed with the reason for a damaged or foreign file, FileIncompatible for a newer one', () => {
    const text = JSON.stringify(agentToFile(agent))
    const cut = parseAgentFile(text.slice(0, 20))
    expect(!cut.ok && cut.error).toMatchObject({ errorType: 'ImportFailed', message: expect.stringMatching(/not valid JSON/) })
    const foreign = parseAgentFile(JSON.stringify({ format: 'switchboard-export', version: 1 }))
    expect(!foreign.ok && foreign.error.message).toMatch(/not a Switchboard agent file/)
    const newer = parseAgentFile(JSON.stringify({ ...agentToFile(agent), version: 2 }))
    expect(!newer.ok && newer.error.errorType).toBe('FileIncompatible')
    const bad = parseAgentFile(JSON.stringify({ ...agentToFile(agent), agent: { ...agentToFile(agent).agent, name: '', extra: 1 } }))
    expect(!bad.ok && bad.error).toMatchObject({ errorType: 'ImportFailed', message: expect.stringMatching(/^Import failed: agent/) })
    const huge = parseAgentFile(JSON.stringify({ ...agentToFile(agent), agent: { ...agentToFile(agent).agent, systemPrompt: 'x'.repeat(200_001) } }))
    expect(huge.ok).toBe(false)
  })
})
