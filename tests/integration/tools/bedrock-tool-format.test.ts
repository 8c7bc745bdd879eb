import { describe, expect, it } from 'vitest'
import { buildBedrockClaudeBody } from '../../../src/core/runtime/providers/bedrock/build-bedrock-body'
import { assistantTurn, toolTurnMessages } from '../../../src/core/tools/tool-loop'
import type { Message } from '../../../src/shared/data/message'

// Bedrock (Claude) gets the loop's tools and its history in the Messages format: tool
// definitions with input_schema, the step as tool_use blocks, results as tool_result blocks.
describe('tool loop history in the Bedrock Claude body', () => {
  it('carries the tools, the calls and their results', () => {
    const step: Message = {
      id: 'm1',
      conversationId: 'c',
      role: 'assistant',
      status: 'complete',
      createdAt: 0,
      updatedAt: 0,
      content: [{ type: 'text', text: 'Let me look.' }],
      toolCalls: [{ id: 'toolu_1', type: 'function', function: { name: 'files__read_text_file', arguments: '{"path":"/tmp/a.txt"}' } }],
      toolResults: [{ toolCallId: 'toolu_1', content: 'alpha', outcome: 'ok' }]
    }
    const body = buildBedrockClaudeBody({
      model: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
      messages: [{ role: 'user', content: 'read a.txt' }, assistantTurn(step), ...toolTurnMessages(step.toolCalls!, step.toolResults)],
      tools: [{ type: 'function', function: { name: 'files__read_text_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]
    })
    expect(body['tools']).toEqual([{ name: 'files__read_text_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }])
    const messages = body['messages'] as { role: string; content: { type: string; [k: string]: unknown }[] }[]
    expect(messages[1]!.content).toContainEqual(expect.objectContaining({ type: 'tool_use', id: 'toolu_1', name: 'files__read_text_file', input: { path: '/tmp/a.txt' } }))
    expect(messages[2]!.role).toBe('user')
    expect(messages[2]!.content).toContainEqual(expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'alpha' }))
  })
})
