import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { SearchProviderId, ToolServerInput, ToolServerStatus, ToolTransport } from '../../../shared/tools/types'
import { SAMPLING_TOOL, toolKey } from '../../../shared/tools/types'
import { safeLinkHref } from '../../../shared/security/url-policy'
import { bridge } from '../../stores/app-store'
import { parsePairs, splitCommand, toolsActions, useTools } from './tools-store'

const field = 'mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700'
const small = 'rounded border border-zinc-300 px-2 py-0.5 text-xs dark:border-zinc-700'
const SEARCH_PROVIDERS: SearchProviderId[] = ['searxng', 'tavily', 'brave', 'exa', 'jina', 'google']

function StateBadge({ status }: { status: ToolServerStatus }) {
  const { t } = useTranslation()
  const tone = { ready: 'bg-green-600', connecting: 'bg-amber-500', error: 'bg-red-600', idle: 'bg-zinc-400', disabled: 'bg-zinc-300' }[status.state]
  return (
    <span className="inline-flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="tool-server-state" data-state={status.state}>
      <span className={`size-2 rounded-full ${tone}`} />
      {status.state === 'ready' ? t('tools.state.ready', { count: status.tools.length }) : t(`tools.state.${status.state}`)}
    </span>
  )
}

function ServerForm({ initial, onDone }: { initial?: ToolServerStatus; onDone(): void }) {
  const { t } = useTranslation()
  const c = initial?.config
  const [name, setName] = useState(c?.name ?? '')
  const [transport, setTransport] = useState<ToolTransport>(c?.transport ?? 'stdio')
  const [command, setCommand] = useState(c ? [c.command ?? '', ...(c.args ?? [])].map((w) => (/\s/.test(w) ? `"${w}"` : w)).join(' ') : '')
  const [url, setUrl] = useState(c?.url ?? '')
  const [env, setEnv] = useState('')
  const [headers, setHeaders] = useState('')
  const [timeout, setTimeoutS] = useState(c?.timeoutMs ? String(c.timeoutMs / 1000) : '')
  const submit = async () => {
    const words = splitCommand(command)
    const input: ToolServerInput = {
      name: name.trim() || (transport === 'stdio' ? (words[0] ?? 'server') : url),
      transport,
      ...(transport === 'stdio' ? { command: words[0] ?? '', args: words.slice(1) } : { url: url.trim() }),
      ...(env.trim() ? { env: parsePairs(env, '=') } : {}),
      ...(headers.trim() ? { headers: parsePairs(headers, ':') } : {}),
      ...(timeout.trim() ? { timeoutMs: Math.round(Number(timeout) * 1000) } : {})
    }
    const ok = initial ? await toolsActions.update(initial.id, input) : await toolsActions.add(input)
    if (ok) onDone()
  }
  return (
    <form
      className="space-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="tool-server-form"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <label className="block text-sm">
        {t('tools.form.name')}
        <input className={field} value={name} onChange={(e) => setName(e.target.value)} data-testid="tool-server-name" />
      </label>
      <label className="block text-sm">
        {t('tools.form.transport')}
        <select className={field} value={transport} onChange={(e) => setTransport(e.target.value as ToolTransport)} data-testid="tool-server-transport">
          <option value="stdio">{t('tools.form.stdio')}</option>
          <option value="http">{t('tools.form.http')}</option>
          <option value="sse">{t('tools.form.sse')}</option>
        </select>
      </label>
      {transport === 'stdio' ? (
        <>
          <label className="block text-sm">
            {t('tools.form.command')}
            <input className={`${field} font-mono`} value={command} onChange={(e) => setCommand(e.target.value)} placeholder="npx -y @modelcontextprotocol/server-filesystem ~/Documents" data-testid="tool-server-command" />
          </label>
          <label className="block text-sm">
            {t('tools.form.env')}
            <textarea className={`${field} font-mono`} rows={2} value={env} onChange={(e) => setEnv(e.target.value)} placeholder={c?.secretEnv?.length ? t('tools.form.keptSecrets', { names: c.secretEnv.join(', ') }) : 'API_TOKEN=…'} />
          </label>
        </>
      ) : (
        <>
          <label className="block text-sm">
            {t('tools.form.url')}
            <input className={`${field} font-mono`} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/mcp" data-testid="tool-server-url" />
          </label>
          <label className="block text-sm">
            {t('tools.form.headers')}
            <textarea className={`${field} font-mono`} rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} placeholder={c?.secretHeaders?.length ? t('tools.form.keptSecrets', { names: c.secretHeaders.join(', ') }) : 'Authorization: Bearer …'} />
          </label>
        </>
      )}
      <p className="text-xs text-zinc-500">{t('tools.form.secretsHint')}</p>
      <label className="block text-sm">
        {t('tools.form.timeout')}
        <input className={field} type="number" min={1} value={timeout} onChange={(e) => setTimeoutS(e.target.value)} placeholder="60" />
      </label>
      <div className="flex gap-2">
        <button type="submit" className="rounded bg-accent px-3 py-1 text-sm text-white" data-testid="tool-server-save">
          {initial ? t('tools.form.save') : t('tools.form.add')}
        </button>
        <button type="button" className="rounded px-3 py-1 text-sm" onClick={onDone}>
          {t('chat.cancel')}
        </button>
      </div>
    </form>
  )
}

/** The folders this server may work in (MCP roots), one per line; empty by default. */
function RootsEditor({ status }: { status: ToolServerStatus }) {
  const { t } = useTranslation()
  const saved = (status.config.roots ?? []).join('\n')
  const [text, setText] = useState(saved)
  useEffect(() => setText(saved), [saved])
  const id = `roots-${status.id}`
  return (
    <details className="text-xs" data-testid="tool-server-roots">
      <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
        {t('tools.roots.title')} ({status.config.roots?.length ?? 0})
      </summary>
      <label htmlFor={id} className="mt-1 block text-zinc-500">{t('tools.roots.hint')}</label>
      <textarea id={id} className="mt-1 h-16 w-full rounded border border-zinc-300 bg-transparent p-1 font-mono dark:border-zinc-700" value={text} onChange={(e) => setText(e.target.value)} data-testid="tool-server-roots-input" />
      <button className={small} disabled={text === saved} onClick={() => void toolsActions.setRoots(status.id, text.split('\n').map((l) => l.trim()).filter(Boolean))} data-testid="tool-server-roots-save">
        {t('tools.roots.save')}
      </button>
    </details>
  )
}

function ServerCard({ status }: { status: ToolServerStatus }) {
  const { t } = useTranslation()
  const settings = useTools((s) => s.settings)
  const [editing, setEditing] = useState(false)
  if (editing) return <ServerForm initial={status} onDone={() => setEditing(false)} />
  return (
    <li className="space-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="tool-server" data-name={status.name}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{status.name}</span>
        <span className="text-xs text-zinc-500">{t(`tools.form.${status.transport}`)}</span>
        <StateBadge status={status} />
        <span className="flex-1" />
        <label className="flex items-center gap-1 text-xs">
          <input type="checkbox" checked={status.enabled} onChange={(e) => void toolsActions.setEnabled(status.id, e.target.checked)} data-testid="tool-server-enabled" />
          {t('tools.enabled')}
        </label>
        <button className={small} onClick={() => void (status.state === 'idle' ? toolsActions.connect([status.id]) : toolsActions.restart(status.id))} disabled={!status.enabled} data-testid="tool-server-restart">
          {status.state === 'idle' ? t('tools.connect') : t('tools.restart')}
        </button>
        <button className={small} onClick={() => setEditing(true)}>
          {t('chat.edit')}
        </button>
        <button className={small} onClick={() => void toolsActions.remove(status.id)} data-testid="tool-server-remove">
          {t('chat.delete')}
        </button>
      </div>
      {safeLinkHref(status.authorizationUrl) && (
        <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="tool-server-signin">
          {/* Desktop: the link goes to the OS browser (window-open handler); browser mode: a new tab. */}
          <a href={safeLinkHref(status.authorizationUrl)} target="_blank" rel="noopener noreferrer" className="rounded bg-accent px-2 py-0.5 text-white">
            {t('toolsKb3.signIn')}
          </a>
          <span className="text-zinc-500">{t('toolsKb3.signInHint')}</span>
        </div>
      )}
      {status.error && !status.authorizationUrl && (
        <div className="text-xs text-red-700 dark:text-red-400" data-testid="tool-server-error">
          {status.error}
          {status.stderrTail && <pre className="mt-1 max-h-32 overflow-auto rounded bg-zinc-100 p-2 font-mono text-[11px] text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">{status.stderrTail.split('\n').slice(-12).join('\n')}</pre>}
        </div>
      )}
      <RootsEditor status={status} />
      <label className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        {t('tools.sampling.setting')}
        <select
          className="rounded border border-zinc-300 bg-transparent text-xs dark:border-zinc-700"
          value={settings?.approvals[toolKey(status.id, SAMPLING_TOOL)] ?? 'ask'}
          onChange={(e) => void toolsActions.setApproval(status.id, SAMPLING_TOOL, e.target.value as 'ask' | 'allow' | 'never')}
          data-testid="tool-server-sampling"
        >
          <option value="ask">{t('tools.mode.ask')}</option>
          <option value="allow">{t('tools.mode.allow')}</option>
          <option value="never">{t('tools.mode.never')}</option>
        </select>
      </label>
      {status.rejectedTools?.map((r) => (
        <div key={r.name} className="text-xs text-amber-700 dark:text-amber-400">
          {t('tools.rejected', { name: r.name, reason: r.reason })}
        </div>
      ))}
      {status.tools.length > 0 && (
        <details data-testid="tool-server-lists">
          <summary className="cursor-pointer text-xs text-zinc-600 dark:text-zinc-400">{t('tools.lists', { tools: status.tools.length, resources: status.resources.length, prompts: status.prompts.length })}</summary>
          <ul className="mt-1 space-y-1">
            {status.tools.map((tool) => (
              <li key={tool.name} className="flex items-start gap-2 text-xs" data-testid="tool-row" data-tool={tool.name}>
                <div className="flex-1">
                  <span className="font-mono">{tool.name}</span>
                  {tool.description && <span className="block text-zinc-500">{tool.description.slice(0, 200)}</span>}
                </div>
                <select
                  className="rounded border border-zinc-300 bg-transparent text-xs dark:border-zinc-700"
                  value={settings?.approvals[toolKey(status.id, tool.name)] ?? 'ask'}
                  onChange={(e) => void toolsActions.setApproval(status.id, tool.name, e.target.value as 'ask' | 'allow' | 'never')}
                  aria-label={t('tools.approvalMode')}
                >
                  <option value="ask">{t('tools.mode.ask')}</option>
                  <option value="allow">{t('tools.mode.allow')}</option>
                  <option value="never">{t('tools.mode.never')}</option>
                </select>
              </li>
            ))}
          </ul>
          {status.resources.length > 0 && <div className="mt-2 text-xs text-zinc-500">{t('tools.resources')}: {status.resources.slice(0, 20).map((r) => r.name).join(', ')}</div>}
          {status.prompts.length > 0 && <div className="mt-1 text-xs text-zinc-500">{t('tools.prompts')}: {status.prompts.slice(0, 20).map((p) => p.name).join(', ')}</div>}
        </details>
      )}
    </li>
  )
}

function ImportBox() {
  const { t } = useTranslation()
  const [text, setText] = useState('')
  const [done, setDone] = useState<number>()
  const run = async (json: string) => {
    const added = await toolsActions.importJson(json)
    if (added) {
      setDone(added.length)
      setText('')
    }
  }
  return (
    <details className="text-sm">
      <summary className="cursor-pointer">{t('tools.import.title')}</summary>
      <textarea aria-label={t('tools.import.title')} className={`${field} font-mono text-xs`} rows={5} value={text} onChange={(e) => setText(e.target.value)} placeholder={'{ "mcpServers": { "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] } } }'} data-testid="tool-import-text" />
      <div className="mt-1 flex items-center gap-2">
        <button className="rounded bg-accent px-3 py-1 text-white disabled:opacity-50" disabled={text.trim().length < 2} onClick={() => void run(text)} data-testid="tool-import">
          {t('tools.import.paste')}
        </button>
        <label className="cursor-pointer text-xs underline">
          {t('tools.import.file')}
          <input type="file" accept=".json,application/json" className="hidden" onChange={(e) => void e.target.files?.[0]?.text().then(run)} />
        </label>
        {done !== undefined && <span className="text-xs text-zinc-500">{t('tools.import.done', { count: done })}</span>}
      </div>
    </details>
  )
}

function SearchSettings() {
  const { t } = useTranslation()
  const settings = useTools((s) => s.settings)
  const [key, setKey] = useState('')
  const [saved, setSaved] = useState(false)
  if (!settings) return null
  const provider = settings.search.provider
  return (
    <div className="space-y-2" data-testid="search-settings">
      <h3 className="text-sm font-medium">{t('tools.search.title')}</h3>
      <label className="block text-sm">
        {t('tools.search.provider')}
        <select className={field} value={provider} onChange={(e) => void toolsActions.updateSettings({ search: { provider: e.target.value as SearchProviderId } })} data-testid="search-provider">
          {SEARCH_PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {t(`tools.search.providers.${p}`)}
            </option>
          ))}
        </select>
      </label>
      {provider === 'searxng' ? (
        <label className="block text-sm">
          {t('tools.search.url')}
          <input className={field} defaultValue={settings.search.url ?? ''} placeholder="http://localhost:8888" onBlur={(e) => e.target.value.trim() && void toolsActions.updateSettings({ search: { provider, url: e.target.value.trim() } })} data-testid="searxng-url" />
        </label>
      ) : (
        <label className="block text-sm">
          {t('tools.search.key')}
          <div className="flex gap-2">
            <input className={field} type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" />
            <button
              className="mt-1 rounded bg-accent px-3 text-white disabled:opacity-50"
              disabled={!key.trim()}
              onClick={() =>
                void bridge()
                  .call('tools.setSearchKey', { provider: provider as Exclude<typeof provider, 'searxng'>, apiKey: key })
                  .then((r) => {
                    setSaved(r.ok)
                    setKey('')
                  })
              }
            >
              {t('tools.search.saveKey')}
            </button>
          </div>
          {saved && <span className="text-xs text-zinc-500">{t('tools.search.keySaved')}</span>}
        </label>
      )}
      {provider === 'google' && (
        <label className="block text-sm">
          {t('tools.search.cx')}
          <input className={field} defaultValue={settings.search.googleCx ?? ''} onBlur={(e) => void toolsActions.updateSettings({ search: { provider, googleCx: e.target.value.trim() } })} />
        </label>
      )}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={settings.allowPrivateAddresses} onChange={(e) => void toolsActions.updateSettings({ allowPrivateAddresses: e.target.checked })} />
        {t('tools.allowPrivate')}
      </label>
    </div>
  )
}

/** Settings → Tools: MCP servers (add, edit, remove, enable, status, restart, lists, import) and the built-in tools. */
export function ToolsSettings() {
  const { t } = useTranslation()
  const { servers, settings, error } = useTools()
  const [adding, setAdding] = useState(false)
  useEffect(() => {
    void toolsActions.load()
    // Status changes (connecting → ready, crashes, restarts) happen in the core: follow them while shown.
    const timer = setInterval(() => void toolsActions.refresh(), 1500)
    return () => clearInterval(timer)
  }, [])
  return (
    <section className="space-y-3" data-testid="tools-settings">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('tools.title')}</h2>
      <p className="text-xs text-zinc-500">{t('tools.intro')}</p>
      {error && <div className="text-xs text-red-700 dark:text-red-400" data-testid="tools-error">{error.message}</div>}
      <ul className="space-y-2">
        {servers.map((s) => (
          <ServerCard key={s.id} status={s} />
        ))}
      </ul>
      {adding ? (
        <ServerForm onDone={() => setAdding(false)} />
      ) : (
        <button className="rounded border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700" onClick={() => setAdding(true)} data-testid="tool-server-add">
          {t('tools.add')}
        </button>
      )}
      <ImportBox />
      {settings && (
        <label className="block text-sm">
          {t('tools.stepLimit')}
          <input className={`${field} w-24`} type="number" min={1} max={100} defaultValue={settings.stepLimit} onBlur={(e) => void toolsActions.updateSettings({ stepLimit: Math.max(1, Math.min(100, Number(e.target.value) || 10)) })} />
        </label>
      )}
      <SearchSettings />
    </section>
  )
}
