import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryBackend } from '../../../src/core/secrets'
import type { ToolServerStatus } from '../../../src/shared/tools/types'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp'
import { ok } from './helpers'
import { readyTestCore, type TestCore } from '../test-core'

// OAuth for a remote MCP server (issue 21) against a real authorization server made of the SDK's
// own server-side pieces (metadata, dynamic client registration, authorize with PKCE, token,
// refresh) and a Streamable HTTP MCP endpoint that requires the bearer token. The browser is
// played by fetch: it opens the sign-in address and follows the redirect to the app's loopback.
let server: OAuthMcpServer
const backend = new MemoryBackend()
const dataDir = mkdtempSync(join(tmpdir(), 'sb-oauth-'))
const opened: string[] = []
let app: TestCore | undefined

async function start() {
  app = await readyTestCore('sb-oauth-', { dataDir, secrets: { backend }, openExternal: (url) => opened.push(url) })
  return app.client
}

async function until(read: () => Promise<ToolServerStatus>, done: (s: ToolServerStatus) => boolean): Promise<ToolServerStatus> {
  for (let i = 0; i < 200; i++) {
    const s = await read()
    if (done(s)) return s
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('timed out waiting for the server status')
}

const stored = async (id: string) => JSON.parse((await backend.get(`key:tool-server-oauth.${id}`)) ?? '{}') as { client?: { client_id: string }; tokens?: { access_token: string; refresh_token?: string } }

beforeAll(async () => {
  server = await startOAuthMcpServer()
})
afterAll(async () => {
  await app?.close()
  await server.close()
})

describe('OAuth sign-in for a remote MCP server', () => {
  let id = ''

  it('discovers, registers, asks for consent with PKCE, completes at the loopback redirect and connects', async () => {
    const client = await start()
    id = ok(await client.call('tools.addServer', { name: 'secured', transport: 'http', url: server.url })).id
    const [first] = ok(await client.call('tools.connect', { ids: [id] }))
    // Not connected yet: the sign-in address is in the status (the link) and was opened in the browser.
    expect(first!.state).toBe('error')
    const signIn = new URL(first!.authorizationUrl!)
    expect(opened).toEqual([signIn.toString()])
    expect(signIn.origin).toBe(new URL(server.url).origin)
    expect(signIn.searchParams.get('code_challenge_method')).toBe('S256')
    expect(signIn.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(signIn.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/)
    // Dynamic client registration happened, and the client went to the keychain.
    const registered = await stored(id)
    expect(registered.client?.client_id).toBe(signIn.searchParams.get('client_id'))
    expect(await server.provider.clientsStore.getClient(registered.client!.client_id)).toBeDefined()

    // The browser: consent (the test server grants at once) → redirect to the app's loopback.
    const consent = await fetch(signIn, { redirect: 'manual' })
    expect(consent.status).toBe(302)
    const back = await fetch(consent.headers.get('location')!)
    expect(back.status).toBe(200)
    expect(await back.text()).toContain('Signed in')

    const ready = await until(async () => ok(await client.call('tools.servers', {})).find((s) => s.id === id)!, (s) => s.state === 'ready')
    expect(ready.tools.map((t) => t.name)).toEqual(['whoami'])
    expect(ready.authorizationUrl).toBeUndefined()
    expect(server.provider.grants).toEqual(['authorization_code'])

    // The tool runs with the bearer token the server issued.
    const tools = app!.core.services().tools
    const offered = (await tools.toolsFor({ servers: [id], builtins: [] }))[0]!
    const { result } = await tools.execute(offered, { id: 'c1', type: 'function', function: { name: offered.exposedName, arguments: '{"greeting":"hi"}' } }, { messageId: 'm', signal: new AbortController().signal })
    expect(result.content).toBe(`hi ${registered.client!.client_id}`)
    const tokens = (await stored(id)).tokens!
    expect(server.seenTokens.at(-1)).toBe(tokens.access_token)

    // Tokens and the client are in the keychain, never in the database.
    for (const name of readdirSync(dataDir)) {
      if (!/\.db(-wal)?$/.test(name)) continue
      const bytes = readFileSync(join(dataDir, name))
      expect(bytes.includes(tokens.access_token)).toBe(false)
      expect(bytes.includes(tokens.refresh_token!)).toBe(false)
    }
  })

  it('an expired access token is refreshed with the refresh token and the call goes through', async () => {
    const before = (await stored(id)).tokens!
    server.provider.expireAccessTokens()
    const tools = app!.core.services().tools
    const offered = (await tools.toolsFor({ servers: [id], builtins: [] }))[0]!
    const { result } = await tools.execute(offered, { id: 'c2', type: 'function', function: { name: offered.exposedName, arguments: '{}' } }, { messageId: 'm', signal: new AbortController().signal })
    expect(result.outcome).toBe('ok')
    expect(server.provider.grants).toEqual(['authorization_code', 'refresh_token'])
    const after = (await stored(id)).tokens!
    expect(after.access_token).not.toBe(before.access_token)
    expect(server.seenTokens.at(-1)).toBe(after.access_token)
  })

  it('after a restart the stored tokens connect without a new sign-in; removing the server forgets them', async () => {
    opened.length = 0
    app = await app!.reopen()
    const { client } = app
    const [status] = ok(await client.call('tools.connect', { ids: [id] }))
    expect(status!.state).toBe('ready')
    expect(opened).toEqual([])
    expect(server.provider.grants.filter((g) => g === 'authorization_code')).toHaveLength(1)
    ok(await client.call('tools.removeServer', { id }))
    expect(await backend.get(`key:tool-server-oauth.${id}`)).toBeNull()
  })

  it('a redirect with an unknown state is refused and changes nothing', async () => {
    const { client } = app!
    const other = ok(await client.call('tools.addServer', { name: 'secured-2', transport: 'http', url: server.url }))
    const [status] = ok(await client.call('tools.connect', { ids: [other.id] }))
    const redirect = new URL(status!.authorizationUrl!).searchParams.get('redirect_uri')!
    const forged = await fetch(`${redirect}?code=stolen&state=not-the-state`)
    expect(forged.status).toBe(400)
    const after = ok(await client.call('tools.servers', {})).find((s) => s.id === other.id)!
    expect(after.state).toBe('error')
    expect(after.authorizationUrl).toBe(status!.authorizationUrl)
    expect(server.provider.grants.filter((g) => g === 'authorization_code')).toHaveLength(1)
  })
})
