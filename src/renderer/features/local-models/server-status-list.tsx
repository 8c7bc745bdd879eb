import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { LOCAL_SERVER_LABELS, type LocalServerStatus } from '../../../shared/local/local-servers'
import { useLocalModels } from './local-models-store'

/** An address that, when it must wrap, wraps before its port rather than inside it. */
function AddressText({ url }: { url: string }) {
  const at = /:\d+(?:[/?#].*)?$/.exec(url)
  if (!at) return <>{url}</>
  return (
    <>
      {url.slice(0, at.index)}
      <wbr />
      {url.slice(at.index)}
    </>
  )
}

function ServerCard({ server }: { server: LocalServerStatus }) {
  const { t } = useTranslation()
  const setBaseUrl = useLocalModels((s) => s.setBaseUrl)
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(server.baseUrl)
  const save = async (value: string | null) => {
    if (await setBaseUrl(server.kind, value)) setEditing(false)
  }
  return (
    <li
      data-testid={`local-server-${server.kind}`}
      data-running={server.running}
      className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <div className="flex items-center gap-2">
        <span aria-hidden className={`size-2 rounded-full ${server.running ? 'bg-emerald-500' : 'bg-zinc-400 dark:bg-zinc-600'}`} />
        <span className="text-sm font-medium">{LOCAL_SERVER_LABELS[server.kind]}</span>
        <span className={`ml-auto text-xs ${server.running ? 'text-emerald-700 dark:text-emerald-400' : 'text-zinc-500'}`}>
          {server.running ? t('local.running') : t('local.notRunning')}
        </span>
      </div>
      <div className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
        {server.running ? (
          <>
            {server.version ? t('local.version', { version: server.version }) : t('local.noVersion')}
            {server.modelCount !== undefined && <> · {t('local.models', { count: server.modelCount })}</>}
          </>
        ) : (
          <span title={server.reason}>{server.reasonCode ? t(`local.reason.${server.reasonCode}`, { name: LOCAL_SERVER_LABELS[server.kind] }) : server.reason}</span>
        )}
      </div>
      {editing ? (
        <form
          className="mt-2 flex gap-1"
          onSubmit={(e) => {
            e.preventDefault()
            void save(draft)
          }}
        >
          <input
            aria-label={t('local.baseUrl')}
            data-testid={`base-url-${server.kind}`}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            className="min-w-0 flex-1 rounded border border-zinc-300 bg-transparent px-2 py-1 text-xs dark:border-zinc-700"
          />
          <button type="submit" className="rounded bg-accent px-2 py-1 text-xs text-white">
            {t('local.save')}
          </button>
          <button type="button" onClick={() => void save(null)} className="rounded px-2 py-1 text-xs text-zinc-600 dark:text-zinc-300">
            {t('local.reset')}
          </button>
        </form>
      ) : (
        <div className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
          {/* Never cut: four cards share a laptop's row, and the port is what tells servers on one host apart. */}
          <code
            data-testid={`server-address-${server.kind}`}
            className="min-w-0 text-zinc-600 [overflow-wrap:anywhere] dark:text-zinc-300"
            title={server.custom ? `${server.baseUrl} (${t('local.customUrl')})` : server.baseUrl}
          >
            <AddressText url={server.baseUrl} />
          </code>
          {server.custom && <span aria-label={t('local.customUrl')} title={t('local.customUrl')} className="size-1.5 shrink-0 rounded-full bg-accent" />}
          <button
            onClick={() => {
              setDraft(server.baseUrl)
              setEditing(true)
            }}
            className="ml-auto shrink-0 text-accent hover:underline"
          >
            {t('local.change')}
          </button>
        </div>
      )}
    </li>
  )
}

export function ServerStatusList() {
  const servers = useLocalModels((s) => s.servers)
  return (
    <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
      {servers.map((server) => (
        <ServerCard key={server.kind} server={server} />
      ))}
    </ul>
  )
}
