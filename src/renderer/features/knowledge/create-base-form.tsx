import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '../../../shared/knowledge/types'
import { call, errorText } from './use-call'

export const field = 'w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900'
export const buttonClass = 'rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:bg-accent-strong disabled:opacity-50'

/** A new base: name, the embedding provider and model (any provider that offers embeddings), chunking. */
export function CreateBaseForm({ onCreated }: { onCreated(id: string): void }) {
  const { t } = useTranslation()
  const [providers, setProviders] = useState<{ id: string; name: string }[]>([])
  const [name, setName] = useState('')
  const [providerId, setProviderId] = useState('openai')
  const [modelId, setModelId] = useState('text-embedding-3-small')
  const [chunkSize, setChunkSize] = useState(DEFAULT_CHUNK_SIZE)
  const [chunkOverlap, setChunkOverlap] = useState(DEFAULT_CHUNK_OVERLAP)
  const [error, setError] = useState<string>()
  useEffect(() => {
    void call('providers.list', {}).then((list) => setProviders(list.providers.map((p) => ({ id: p.id, name: p.name }))), () => undefined)
  }, [])
  const submit = async () => {
    setError(undefined)
    try {
      const kb = await call('knowledge.create', { name: name.trim(), providerId, modelId: modelId.trim(), chunkSize, chunkOverlap })
      setName('')
      onCreated(kb.id)
    } catch (e) {
      setError(errorText(e))
    }
  }
  return (
    <form
      className="space-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
      data-testid="kb-create"
    >
      <label className="block text-xs font-medium">
        {t('knowledge.name')}
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('knowledge.namePlaceholder')} className={field} data-testid="kb-name" />
      </label>
      <label className="block text-xs font-medium">
        {t('knowledge.provider')}
        <select value={providerId} onChange={(e) => setProviderId(e.target.value)} className={field} data-testid="kb-provider">
          {(providers.length ? providers : [{ id: 'openai', name: 'OpenAI' }]).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-xs font-medium">
        {t('knowledge.model')}
        <input value={modelId} onChange={(e) => setModelId(e.target.value)} className={field} data-testid="kb-model" />
      </label>
      <div className="flex gap-2">
        <label className="block text-xs font-medium">
          {t('knowledge.chunkSize')}
          <input type="number" min={100} max={20000} value={chunkSize} onChange={(e) => setChunkSize(Number(e.target.value))} className={field} />
        </label>
        <label className="block text-xs font-medium">
          {t('knowledge.chunkOverlap')}
          <input type="number" min={0} max={5000} value={chunkOverlap} onChange={(e) => setChunkOverlap(Number(e.target.value))} className={field} />
        </label>
      </div>
      <button type="submit" disabled={!name.trim() || !modelId.trim()} className={buttonClass} data-testid="kb-create-submit">
        {t('knowledge.create')}
      </button>
      {error && (
        <p role="alert" className="text-xs text-red-600">
          {error}
        </p>
      )}
    </form>
  )
}
