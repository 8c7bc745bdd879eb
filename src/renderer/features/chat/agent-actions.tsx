import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Upload } from 'lucide-react'
import type { Agent } from '../../../shared/data/agent'
import { agentFileName, agentToFile } from '../../../shared/data/agent-file'
import type { AppError } from '../../../shared/errors/app-error'
import { useFilePick } from '../../components/file-pick'
import { bridge } from '../../stores/app-store'
import { chatActions, useChat } from './chat-store'
import { DataError } from '../data/data-error'
import { saveBlob } from '../data/format'

const button = 'rounded-md border border-zinc-300 px-2.5 py-1.5 text-xs dark:border-zinc-700'

/**
 * Duplicate, export and delete, for the agent settings. Deleting says what happens to the
 * agent's conversations (deleted with it; the core backs them up first, restorable from
 * Settings → Data) before it is confirmed.
 */
export function AgentActions({ agent, onClose }: { agent: Agent; onClose(): void }) {
  const { t } = useTranslation()
  const conversations = useChat((s) => s.conversations.filter((c) => c.agentId === agent.id).length)
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<AppError>()

  const duplicate = async () => {
    const { name, avatar, description, systemPrompt, providerId, modelId, parameters, tags } = agent
    const r = await bridge().call('data.agents.create', {
      name: t('agents.copyName', { name }).slice(0, 200),
      systemPrompt,
      parameters,
      tags,
      ...(avatar !== undefined ? { avatar } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(providerId !== undefined ? { providerId } : {}),
      ...(modelId !== undefined ? { modelId } : {})
    })
    if (!r.ok) return setError(r.error)
    useChat.setState((s) => ({ agents: [...s.agents, r.value], agentId: r.value.id }))
    onClose()
  }
  const exportFile = () => saveBlob(new Blob([JSON.stringify(agentToFile(agent), null, 2)], { type: 'application/json' }), agentFileName(agent.name))
  const remove = async () => {
    const r = await bridge().call('data.agents.delete', { id: agent.id })
    if (!r.ok) return setError(r.error)
    useChat.setState((s) => ({
      agents: s.agents.filter((a) => a.id !== agent.id),
      conversations: s.conversations.filter((c) => c.agentId !== agent.id),
      agentId: undefined,
      currentId: s.conversations.some((c) => c.id === s.currentId && c.agentId === agent.id) ? undefined : s.currentId
    }))
    onClose()
    location.hash = '/chat'
    // The core names the default agent again (it makes one if this was the last).
    await chatActions.load()
  }

  return (
    <div className="mr-auto flex flex-col gap-2" data-testid="agent-actions">
      <div className="flex flex-wrap gap-2">
        <button className={button} onClick={() => void duplicate()} data-testid="agent-duplicate">
          {t('agents.duplicate')}
        </button>
        <button className={button} onClick={exportFile} data-testid="agent-export">
          {t('agents.export')}
        </button>
        <button className={`${button} text-red-700 dark:text-red-300`} onClick={() => setConfirming(true)} data-testid="agent-delete">
          {t('agents.delete')}
        </button>
      </div>
      {confirming && (
        <div role="alertdialog" className="space-y-2 rounded-md border border-red-200 p-2 text-xs dark:border-red-900" data-testid="agent-delete-confirm">
          <p>{conversations > 0 ? t('agents.deleteWithConversations', { name: agent.name, count: conversations }) : t('agents.deleteEmpty', { name: agent.name })}</p>
          <div className="flex gap-2">
            <button className="rounded-md bg-red-600 px-2.5 py-1 text-white" onClick={() => void remove()} data-testid="agent-delete-confirm-button">
              {t('agents.delete')}
            </button>
            <button className="underline" onClick={() => setConfirming(false)}>
              {t('dataTransfer.cancel')}
            </button>
          </div>
        </div>
      )}
      {error && <DataError error={error} onClose={() => setError(undefined)} />}
    </div>
  )
}

/** Import one agent from its file (as a new agent, so the same file twice gives two, the second named "Name (2)"). */
export function ImportAgentButton({ className, rootClassName = '' }: { className: string; rootClassName?: string }) {
  const { t } = useTranslation()
  const [error, setError] = useState<AppError>()
  const read = async (file: File) => {
    setError(undefined)
    // The checks use zod, loaded only now: the entry chunk does not carry it.
    const { parseAgentFile } = await import('../../../shared/data/agent-file-schema')
    const parsed = parseAgentFile(await file.text())
    if (!parsed.ok) return setError(parsed.error)
    // The same file twice gives a second agent under a name of its own ("Name (2)").
    const taken = new Set(useChat.getState().agents.map((a) => a.name))
    let name = parsed.agent.name
    for (let n = 2; taken.has(name); n++) name = `${parsed.agent.name} (${n})`
    const r = await bridge().call('data.agents.create', { ...parsed.agent, name })
    if (!r.ok) return setError(r.error)
    useChat.setState((s) => ({ agents: [...s.agents, r.value], agentId: r.value.id }))
    location.hash = '/chat'
  }
  const picker = useFilePick({ accept: 'application/json,.json', testId: 'agent-import-file', onFile: (file) => void read(file) })
  return (
    <span className={`relative inline-flex ${rootClassName}`}>
      <button className={className} aria-label={t('agents.import')} title={t('agents.import')} onClick={picker.open} data-testid="agent-import">
        <Upload aria-hidden className="size-4" />
      </button>
      {picker.input}
      {error && (
        <div className="absolute top-full right-0 z-10 mt-1 w-60 font-normal normal-case">
          <DataError error={error} onClose={() => setError(undefined)} />
        </div>
      )}
    </span>
  )
}
