import { describe, expect, it } from 'vitest'
import { McpConnection } from '../../../src/core/tools/mcp-connection'
import type { ToolServerConfig } from '../../../src/shared/tools/types'

// Start-up of a tool server that never answers, or answers something that is not MCP: the
// wait is the server's own timeout, and the error is a sentence, not a dump of schema issues.
const silent = 'process.stdin.resume()'
// Answers initialize with a result whose fields have the wrong types.
const malformed = `let buf = ''
process.stdin.on('data', (c) => {
  buf += c
  let i
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1)
    const m = JSON.parse(line)
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 5, capabilities: 'all', serverInfo: [] } }) + '\\n')
  }
})`

const connection = (script: string, timeoutMs?: number) =>
  new McpConnection({ id: 's', name: 'Odd server', transport: 'stdio', command: process.execPath, args: ['-e', script], enabled: true, ...(timeoutMs ? { timeoutMs } : {}) } satisfies ToolServerConfig, {
    secrets: async () => ({ env: {}, headers: {} })
  })

describe('connecting to a tool server that misbehaves', () => {
  it('gives up after the server’s own timeoutMs, not the 30 s default', async () => {
    const c = connection(silent, 5000)
    const started = Date.now()
    await expect(c.ensure()).rejects.toMatchObject({ error: { errorType: 'PluginGatewayError', message: expect.stringMatching(/did not answer within 5 s/) } })
    expect(Date.now() - started).toBeLessThan(15_000)
    await c.close()
  }, 40_000)

  it('a malformed answer is a readable message naming the server and the field', async () => {
    const c = connection(malformed, 5000)
    const error = await c.ensure().then(
      () => undefined,
      (e: { error: { message: string } }) => e.error.message
    )
    expect(error).toMatch(/^Odd server answered with something that is not valid MCP/)
    expect(error).not.toMatch(/"code":|\[\s*\{/)
    expect(error!.length).toBeLessThan(300)
    await c.close()
  }, 40_000)
})
