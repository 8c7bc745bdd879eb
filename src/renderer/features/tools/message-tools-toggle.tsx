import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { create } from 'zustand'
import { Wrench } from 'lucide-react'
import { BUILTIN_SERVER_ID, type MessageToolChoice } from '../../../shared/tools/types'
import { toolsActions, useTools } from './tools-store'

/**
 * The composer's tools choice for the next message: all off, or some servers off. The agent's
 * own tools are not changed; the choice is sent with one message and then forgotten.
 */
export const useMessageTools = create<{ choice: MessageToolChoice }>()(() => ({ choice: {} }))

/** The choice for the message being sent (undefined: the agent's tools as they are); cleared. */
export function takeMessageTools(): MessageToolChoice | undefined {
  const { choice } = useMessageTools.getState()
  if (!choice.off && !choice.skipServers?.length) return undefined
  useMessageTools.setState({ choice: {} })
  return choice
}

/** The composer button: shows whether tools are on for the next message; a menu turns them (or a server) off. */
export function MessageToolsToggle({ agentId }: { agentId: string | undefined }) {
  const { t } = useTranslation()
  const { servers, settings } = useTools()
  const choice = useMessageTools((s) => s.choice)
  const [open, setOpen] = useState(false)
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!settings) void toolsActions.load()
  }, [settings])
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false)
    }
    // Escape closes the menu (and goes no further: the composer's Escape stops a reply).
    const escape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return
      e.stopPropagation()
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener('mousedown', close)
    document.addEventListener('keydown', escape, true)
    return () => {
      document.removeEventListener('mousedown', close)
      document.removeEventListener('keydown', escape, true)
    }
  }, [open])
  const agentChoice = agentId ? settings?.agents[agentId] : undefined
  const entries = [
    ...(agentChoice?.servers ?? []).map((id) => ({ id, name: servers.find((s) => s.id === id)?.name ?? id })),
    ...(agentChoice?.builtins.length ? [{ id: BUILTIN_SERVER_ID, name: agentChoice.builtins.map((b) => t(`tools.builtin.${b}`)).join(', ') }] : [])
  ]
  if (!entries.length) return null
  const skipped = new Set(choice.skipServers ?? [])
  const label = choice.off ? t('tools.composer.off') : skipped.size ? t('tools.composer.some', { count: skipped.size }) : t('tools.composer.on')
  const set = (next: MessageToolChoice) => useMessageTools.setState({ choice: next })
  const toggleServer = (id: string, on: boolean) => {
    const rest = [...skipped].filter((s) => s !== id)
    set({ skipServers: on ? rest : [...rest, id] })
  }
  return (
    <div ref={root} className="relative">
      <button
        ref={button}
        type="button"
        className={`flex items-center gap-1 rounded border px-2 py-0.5 text-xs ${choice.off || skipped.size ? 'border-amber-400 text-amber-700 dark:text-amber-300' : 'border-zinc-300 dark:border-zinc-700'}`}
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={`${t('tools.composer.label')}: ${label}`}
        title={t('tools.composer.note')}
        onClick={() => setOpen((o) => !o)}
        data-testid="message-tools-toggle"
        data-state={choice.off ? 'off' : skipped.size ? 'some' : 'on'}
      >
        <Wrench size={12} aria-hidden />
        {label}
      </button>
      {open && (
        <div role="group" aria-label={t('tools.composer.label')} className="absolute bottom-full left-0 z-20 mb-1 w-64 space-y-1 rounded-md border border-zinc-200 bg-white p-2 text-xs shadow-lg dark:border-zinc-700 dark:bg-zinc-900" data-testid="message-tools-menu">
          <label className="flex items-center gap-2 font-medium">
            <input type="checkbox" autoFocus checked={!choice.off} onChange={(e) => set(e.target.checked ? { ...(choice.skipServers ? { skipServers: choice.skipServers } : {}) } : { off: true, ...(choice.skipServers ? { skipServers: choice.skipServers } : {}) })} data-testid="message-tools-all" />
            {t('tools.composer.all')}
          </label>
          {entries.map((e) => (
            <label key={e.id} className={`flex items-center gap-2 pl-4 ${choice.off ? 'text-zinc-400' : ''}`}>
              <input type="checkbox" disabled={choice.off} checked={!choice.off && !skipped.has(e.id)} onChange={(ev) => toggleServer(e.id, ev.target.checked)} data-testid="message-tools-server" data-name={e.name} />
              <span className="truncate">{e.name}</span>
            </label>
          ))}
          <p className="text-zinc-500">{t('tools.composer.note')}</p>
        </div>
      )}
    </div>
  )
}
