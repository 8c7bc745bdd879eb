import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { dataDirFrom } from '../data-dir'
import { withCore } from '../open-core'

/** `api origins …` and `api hosts …`: the two allow-lists of Settings → Local API (their checks load when used: `--help` stays small). */
const LISTS = {
  origins: { field: 'allowedOrigins', check: 'checkOrigin', what: 'origin' },
  hosts: { field: 'allowedHosts', check: 'checkHostName', what: 'host name' }
} as const
const LIST_ACTIONS = ['list', 'add', 'remove']

const USAGE = `switchboard api <command> [--data-dir DIR]
  api serve [--host HOST] [--port N]        runs the local API until Ctrl-C (whatever Settings says)
  api keys [--json]                          lists the keys (never the keys themselves)
  api usage [--json]                         calls, cost and prompt-cache hit rate per key and per model
  api key-create NAME [--model ID]… [--rate-limit N] [--spend-cap USD]
                                             prints a new key once; --model limits it (provider/model, provider/*)
  api key-revoke ID
  api origins list|add|remove [ORIGIN]…      web pages allowed to call it (CORS), e.g. https://app.example.com
  api hosts list|add|remove [NAME]…          extra host names it answers to (IP addresses and localhost always are)
Clients call http://HOST:PORT/v1 with the key as "Authorization: Bearer …" (OpenAI) or "x-api-key" (Anthropic).`

/** `switchboard api`: the OpenAI- and Anthropic-compatible local API, headless, over the app's data folder. */
export const apiCommand: CliCommand = {
  name: 'api',
  summary: 'The local OpenAI/Anthropic-compatible API: serve it, manage its keys',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, lists, positionals } = parseFlags(args, { booleans: ['json'], strings: ['data-dir', 'host', 'port', 'rate-limit', 'spend-cap'], repeatable: ['model'] })
    const [sub, ...rest] = positionals
    const list = sub === 'origins' || sub === 'hosts' ? LISTS[sub] : undefined
    const listUsage = list && (!LIST_ACTIONS.includes(rest[0] ?? '') || (rest[0] !== 'list' && rest.length < 2))
    if (!sub || !['serve', 'keys', 'usage', 'key-create', 'key-revoke', 'origins', 'hosts'].includes(sub) || (!list && sub !== 'serve' && sub !== 'keys' && sub !== 'usage' && !rest[0]) || listUsage) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    // Entries are checked before the data folder is opened: a typo is named at once.
    const entries: string[] = []
    if (list && rest[0] !== 'list') {
      const allowLists = await import('../../shared/security/local-api-allow-lists')
      for (const text of rest.slice(1)) {
        const entry = allowLists[list.check](text)
        if (!entry.ok) {
          io.stderr.write(`${JSON.stringify(text)} is not a valid ${list.what}: ${allowLists.ALLOW_LIST_PROBLEMS[entry.problem]}.\n`)
          return 2
        }
        entries.push(entry.value)
      }
    }
    const port = typeof flags.get('port') === 'string' ? Number(flags.get('port')) : undefined
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
      io.stderr.write(`--port takes a whole number from 0 to 65535.\n`)
      return 2
    }
    const host = typeof flags.get('host') === 'string' ? (flags.get('host') as string) : undefined
    const dataDir = dataDirFrom(flags, io.env)
    // Provider keys from the environment when none is stored (`ANTHROPIC_API_KEY` …), as `serve` and `chat` read them.
    const coreOptions = { keyEnv: io.env, engine: { utilityProcess: io.engineUtilityProcess }, localApi: { ...(host ? { host } : {}), ...(port !== undefined ? { port } : {}), serve: sub === 'serve' } }
    return withCore(io, { dataDir, command: 'api', core: coreOptions }, async (core, client) => {
      if (sub === 'keys') {
        const status = await client.call('localApi.status', {})
        if (!status.ok) throw new Error(status.error.message)
        if (flags.get('json') === true) io.stdout.write(`${JSON.stringify(status.value.keys)}\n`)
        else if (status.value.keys.length === 0) io.stdout.write(`No keys yet: switchboard api key-create NAME\n`)
        else
          for (const k of status.value.keys)
            io.stdout.write(`${k.id}  ${k.name}  ${k.prefix}…  ${k.revokedAt ? 'revoked' : 'active'}  ${k.calls} calls  $${k.spentUsd.toFixed(4)}${k.spendCapUsd !== undefined ? ` of $${k.spendCapUsd}` : ''}\n`)
        return 0
      }
      if (sub === 'usage') {
        const [status, byKey, byModel] = await Promise.all([
          client.call('localApi.status', {}),
          client.call('data.usage.summary', { group: 'apiKey', scene: 'Local API' }),
          client.call('data.usage.summary', { group: 'model', scene: 'Local API' })
        ])
        for (const r of [status, byKey, byModel]) if (!r.ok) throw new Error(r.error.message)
        if (!status.ok || !byKey.ok || !byModel.ok) return 1
        const { cacheHitRate } = await import('../../shared/data/usage-log')
        const names = new Map(status.value.keys.map((k) => [k.id, k.name]))
        const row = (r: (typeof byKey.value)[number]) => ({ calls: r.calls, inputTokens: r.inputTokens, cachedInputTokens: r.cachedInputTokens, cacheHitRate: cacheHitRate(r) ?? null, costUsd: r.costUsd })
        const keys = byKey.value.map((r) => ({ id: r.key, name: names.get(r.key) ?? '', ...row(r) }))
        const models = byModel.value.map((r) => ({ model: r.key, ...row(r) }))
        if (flags.get('json') === true) {
          io.stdout.write(`${JSON.stringify({ keys, models })}
`)
          return 0
        }
        const rate = (r: { cacheHitRate: number | null }) => (r.cacheHitRate === null ? 'no input' : `${(r.cacheHitRate * 100).toFixed(1)}% cached`)
        if (keys.length === 0) io.stdout.write(`No calls through the local API yet.\n`)
        for (const k of keys) io.stdout.write(`key   ${k.name || k.id}  ${k.calls} calls  ${k.inputTokens} input tokens, ${rate(k)}  $${k.costUsd.toFixed(4)}\n`)
        for (const m of models) io.stdout.write(`model ${m.model}  ${m.calls} calls  ${m.inputTokens} input tokens, ${rate(m)}  $${m.costUsd.toFixed(4)}\n`)
        return 0
      }
      if (sub === 'key-create') {
        const num = (name: string) => (typeof flags.get(name) === 'string' ? Number(flags.get(name)) : undefined)
        const made = await client.call('localApi.createKey', {
          name: rest[0]!,
          ...(lists.get('model')?.length ? { allowedModels: lists.get('model')! } : {}),
          ...(num('rate-limit') !== undefined ? { rateLimitPerMinute: num('rate-limit')! } : {}),
          ...(num('spend-cap') !== undefined ? { spendCapUsd: num('spend-cap')! } : {})
        })
        if (!made.ok) {
          io.stderr.write(`${made.error.message}\n`)
          return 1
        }
        io.stdout.write(flags.get('json') === true ? `${JSON.stringify({ ...made.value.key, secret: made.value.secret })}\n` : `${made.value.secret}\n`)
        if (flags.get('json') !== true) io.stderr.write(`Key "${made.value.key.name}" (${made.value.key.id}). It is shown only now: keep it somewhere safe.\n`)
        return 0
      }
      if (list) {
        const status = await client.call('localApi.status', {})
        if (!status.ok) throw new Error(status.error.message)
        const before = status.value[list.field]
        let after = before
        if (rest[0] === 'add') after = [...before, ...entries.filter((e) => !before.includes(e))]
        if (rest[0] === 'remove') {
          const missing = entries.filter((e) => !before.includes(e))
          if (missing.length) {
            io.stderr.write(`Not in the list: ${missing.join(', ')}. Listed: ${before.length ? before.join(', ') : 'none'}.\n`)
            return 1
          }
          after = before.filter((e) => !entries.includes(e))
        }
        if (after !== before) {
          const updated = await client.call('localApi.update', { [list.field]: after })
          if (!updated.ok) {
            io.stderr.write(`${updated.error.message}\n`)
            return 1
          }
          after = updated.value[list.field]
        }
        if (flags.get('json') === true) io.stdout.write(`${JSON.stringify(after)}\n`)
        else if (after.length === 0) io.stdout.write(`No ${list.what}s listed.\n`)
        else io.stdout.write(`${after.join('\n')}\n`)
        return 0
      }
      if (sub === 'key-revoke') {
        const revoked = await client.call('localApi.revokeKey', { id: rest[0]! })
        if (!revoked.ok) {
          io.stderr.write(`${revoked.error.message}\n`)
          return 1
        }
        io.stdout.write(`Revoked.\n`)
        return 0
      }
      await core.services().gateway.settled()
      const status = await client.call('localApi.status', {})
      if (!status.ok) throw new Error(status.error.message)
      if (!status.value.url) {
        io.stderr.write(`The local API did not start: ${status.value.error ?? 'unknown reason'}\n`)
        return 1
      }
      if (!status.value.keys.some((k) => !k.revokedAt)) io.stderr.write(`No key exists yet, so every call will be refused: switchboard api key-create NAME\n`)
      io.stdout.write(`Local API on ${status.value.url}/v1 (OpenAI) and ${status.value.url}/v1/messages (Anthropic). Ctrl-C stops it.\n`)
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve)
        process.once('SIGTERM', resolve)
      })
      return 0
    })
  }
}
