import { resolve } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { ok, readyTestCore } from '../test-core'

/** The reference MCP servers, run from node_modules with this Node (offline). */
export const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
export const HOSTILE = resolve('tests/fixtures/hostile-mcp/hostile-server.mjs')

export { ok }

export interface TestCore {
  core: Core
  client: BridgeClient<Contract>
  dataDir: string
  agentId: string
}

export async function startCore(): Promise<TestCore> {
  const { core, client, dataDir } = await readyTestCore('sb-tools-', { secrets: { backend: new MemoryBackend() } })
  const agentId = ok(await client.call('chat.sidebar', {})).defaultAgentId
  return { core, client, dataDir, agentId }
}

export type Run = { events: ChatStreamEvent[]; result: Result<Message> }

/** Sends a message and answers every approval card with `decide` (the user at the card). */
export function sendAndAnswer(
  client: BridgeClient<Contract>,
  input: { text: string; conversationId?: string },
  decide: (tool: string) => 'allow' | 'deny' | 'always' | 'never' | 'wait' = () => 'allow',
  onEvent?: (e: ChatStreamEvent, streamId: Promise<string>) => void
): Promise<Run> {
  return new Promise((done) => {
    const events: ChatStreamEvent[] = []
    const handle = client.stream('chat.send', input, {
      onEvent: (e: ChatStreamEvent) => {
        events.push(e)
        if (e.type === 'tool_approval') {
          const decision = decide(e.data.tool)
          if (decision !== 'wait') void client.call('tools.answer', { messageId: e.data.messageId, callId: e.data.callId, decision })
        }
        onEvent?.(e, handle.streamId)
      },
      onEnd: (result: Result<Message>) => done({ events, result })
    })
  })
}
