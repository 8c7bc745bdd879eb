import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { Agent, ModelParameters } from '../../../shared/data/agent'
import { bridge } from '../../stores/app-store'
import { useProviders } from '../providers/providers-store'
import { cropAvatar, isPictureAvatar } from './avatar'
import { useChat } from './chat-store'
import { ModelPicker } from './model-picker'
import { AgentChatFields, GenerateAgentMeta } from './agent-chat-fields'
import { agentName } from './display-names'
import { Bot } from 'lucide-react'
import { AgentToolsField } from '../tools/agent-tools-field'
import { AttachKnowledge } from '../knowledge/attach-knowledge'
import { AgentSpend } from '../usage/spend'
import { AgentActions } from './agent-actions'

const field = 'mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 text-sm dark:border-zinc-700'

function Row({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <label className="block text-sm font-medium">
      {label}
      {children}
      {hint && <span className="mt-0.5 block text-xs font-normal text-zinc-500">{hint}</span>}
    </label>
  )
}

/** Reasoning controls appear only where the model's extendParams allow them (product.md §3). */
export function reasoningControls(extendParams: readonly string[] | undefined) {
  const has = (name: string) => extendParams?.includes(name) ?? false
  return {
    effort: has('reasoningEffort') || has('gpt5ReasoningEffort'),
    budget: has('reasoningBudgetToken') || has('thinkingBudget') || has('enableReasoning') || has('thinking'),
    verbosity: has('textVerbosity')
  }
}

export function AgentSettingsDialog({ agent, open, onClose }: { agent: Agent; open: boolean; onClose(): void }) {
  const { t } = useTranslation()
  const picker = useProviders((s) => s.picker)
  // The default agent's untouched name is shown in the user's language (as a
  // placeholder, so saving keeps the stored default and it follows the next language change).
  const defaultAgentId = useChat((s) => s.defaultAgentId)
  const shownName = agentName(agent, defaultAgentId, t)
  const withName = (a: Agent) => (shownName !== a.name ? { ...a, name: '' } : a)
  const [draft, setDraft] = useState(() => withName(agent))
  const [tags, setTags] = useState(agent.tags.join(', '))
  const [error, setError] = useState<string>()
  const [saving, setSaving] = useState(false)
  useEffect(() => {
    setDraft(withName(agent))
    setTags(agent.tags.join(', '))
    // Only another agent resets the draft: a refresh of this one (a list reload, its spend)
    // must not drop what the user is typing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agent.id])
  const model = picker.flatMap((g) => g.models).find((m) => m.providerId === draft.providerId && m.id === draft.modelId)
  const controls = reasoningControls(model?.extendParams)
  const params = draft.parameters
  const setParam = <K extends keyof ModelParameters>(key: K, value: ModelParameters[K] | undefined) =>
    setDraft((d) => {
      const parameters = { ...d.parameters }
      if (value === undefined || (typeof value === 'number' && Number.isNaN(value))) delete parameters[key]
      else parameters[key] = value
      return { ...d, parameters }
    })
  const num = (value: string) => (value.trim() === '' ? undefined : Number(value))

  const save = async () => {
    if (saving) return
    setError(undefined)
    setSaving(true)
    const result = await bridge().call('data.agents.update', {
      id: agent.id,
      patch: {
        name: draft.name.trim() || agent.name,
        avatar: draft.avatar,
        systemPrompt: draft.systemPrompt,
        description: draft.description ?? '',
        ...(draft.providerId && draft.modelId ? { providerId: draft.providerId, modelId: draft.modelId } : {}),
        parameters: draft.parameters,
        tags: tags.split(',').map((x) => x.trim()).filter(Boolean)
      }
    })
    setSaving(false)
    if (!result.ok) return setError(result.error.message)
    useChat.setState((s) => ({ agents: s.agents.map((a) => (a.id === agent.id ? result.value : a)) }))
    onClose()
  }

  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 flex max-h-[90vh] w-[min(94vw,36rem)] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl bg-white shadow-xl dark:bg-zinc-900" data-testid="agent-settings">
          <div className="border-b border-zinc-200 px-6 py-4 dark:border-zinc-800">
            <Dialog.Title className="text-lg font-semibold">{t('agent.title')}</Dialog.Title>
            <Dialog.Description className="text-sm text-zinc-500">{t('agent.description')}</Dialog.Description>
          </div>
          <div className="min-h-0 flex-1 space-y-4 overflow-y-auto px-6 py-4">
            <div className="flex items-center gap-4">
              <div className="grid size-16 shrink-0 place-items-center overflow-hidden rounded-full bg-zinc-100 text-2xl dark:bg-zinc-800" data-testid="agent-avatar">
                {isPictureAvatar(draft.avatar) ? <img src={draft.avatar} alt="" className="size-full object-cover" /> : draft.avatar ? <span aria-hidden>{draft.avatar}</span> : <Bot aria-hidden className="size-5" />}
              </div>
              <div className="flex-1 space-y-1">
                <Row label={t('agent.name')}>
                  <input value={draft.name} placeholder={shownName} onChange={(e) => setDraft({ ...draft, name: e.target.value })} className={field} data-testid="agent-name" />
                </Row>
                <label className="inline-block cursor-pointer text-xs text-accent underline">
                  {t('agent.uploadAvatar')}
                  <input
                    type="file"
                    accept="image/*"
                    className="sr-only"
                    data-testid="agent-avatar-input"
                    onChange={async (e) => {
                      const file = e.target.files?.[0]
                      if (!file) return
                      try {
                        setDraft({ ...draft, avatar: await cropAvatar(file) })
                      } catch (err) {
                        setError(err instanceof Error ? err.message : String(err))
                      }
                    }}
                  />
                </label>
                <AgentSpend agentId={agent.id} />
              </div>
            </div>
            <Row label={t('agent.systemPrompt')}>
              <textarea
                value={draft.systemPrompt}
                onChange={(e) => setDraft({ ...draft, systemPrompt: e.target.value })}
                rows={5}
                className={field}
                data-testid="agent-system-prompt"
              />
            </Row>
            <div className="text-sm font-medium">
              {t('agent.defaultModel')}
              <div className="mt-1">
                <ModelPicker
                  current={draft.providerId && draft.modelId ? { providerId: draft.providerId, modelId: draft.modelId } : undefined}
                  onPick={(providerId, modelId) => setDraft({ ...draft, providerId, modelId })}
                />
              </div>
            </div>
            <div className="grid grid-cols-3 gap-3">
              <Row label={t('agent.temperature')} hint="0 – 2">
                <input type="number" min={0} max={2} step={0.1} value={params.temperature ?? ''} onChange={(e) => setParam('temperature', num(e.target.value))} className={field} data-testid="agent-temperature" />
              </Row>
              <Row label={t('agent.topP')} hint="0 – 1">
                <input type="number" min={0} max={1} step={0.05} value={params.topP ?? ''} onChange={(e) => setParam('topP', num(e.target.value))} className={field} />
              </Row>
              <Row label={t('agent.maxTokens')} hint={model?.maxOutput ? `≤ ${model.maxOutput.toLocaleString()}` : undefined}>
                <input type="number" min={1} max={model?.maxOutput} step={1} value={params.maxOutputTokens ?? ''} onChange={(e) => setParam('maxOutputTokens', num(e.target.value))} className={field} />
              </Row>
            </div>
            {(controls.effort || controls.budget || controls.verbosity) && (
              <fieldset className="space-y-3 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="reasoning-controls">
                <legend className="px-1 text-xs font-semibold text-zinc-500 uppercase">{t('agent.reasoning')}</legend>
                {controls.effort && (
                  <Row label={t('agent.reasoningEffort')}>
                    <select value={params.reasoningEffort ?? ''} onChange={(e) => setParam('reasoningEffort', e.target.value || undefined)} className={field}>
                      <option value="">{t('agent.default')}</option>
                      {['minimal', 'low', 'medium', 'high'].map((v) => (
                        <option key={v} value={v}>
                          {v}
                        </option>
                      ))}
                    </select>
                  </Row>
                )}
                {controls.budget && (
                  <Row label={t('agent.thinkingBudget')} hint={t('agent.thinkingBudgetHint')}>
                    <input type="number" min={0} step={256} value={params.thinkingBudget ?? ''} onChange={(e) => setParam('thinkingBudget', num(e.target.value))} className={field} />
                  </Row>
                )}
                {controls.verbosity && (
                  <Row label={t('agent.verbosity')}>
                    <select
                      value={String(params.extra?.['textVerbosity'] ?? '')}
                      onChange={(e) => setParam('extra', { ...(params.extra ?? {}), ...(e.target.value ? { textVerbosity: e.target.value } : {}) })}
                      className={field}
                    >
                      <option value="">{t('agent.default')}</option>
                      {['low', 'medium', 'high'].map((v) => (
                        <option key={v} value={v}>
                          {v}
                        </option>
                      ))}
                    </select>
                  </Row>
                )}
              </fieldset>
            )}
            <AttachKnowledge owner={{ kind: 'agent', id: agent.id }} />
            <AgentChatFields params={params} setParam={setParam} />
            <Row label={t('controls.agentDescription')}>
              <textarea value={draft.description ?? ''} onChange={(e) => setDraft({ ...draft, description: e.target.value })} rows={2} className={field} data-testid="agent-description" />
            </Row>
            <GenerateAgentMeta
              systemPrompt={draft.systemPrompt}
              model={draft.providerId && draft.modelId ? { providerId: draft.providerId, modelId: draft.modelId } : undefined}
              onGenerated={(meta) => {
                setDraft((d) => ({ ...d, name: meta.name || d.name, description: meta.description }))
                setTags(meta.tags.join(', '))
              }}
            />
            <Row label={t('agent.tags')} hint={t('agent.tagsHint')}>
              <input value={tags} onChange={(e) => setTags(e.target.value)} className={field} data-testid="agent-tags" />
            </Row>
            <AgentToolsField agentId={agent.id} />
            {error && (
              <p role="alert" className="text-sm text-red-600">
                {error}
              </p>
            )}
          </div>
          <div className="flex items-start justify-end gap-2 border-t border-zinc-200 px-6 py-3 dark:border-zinc-800">
            <AgentActions agent={agent} onClose={onClose} />
            <button onClick={onClose} className="rounded-md px-3 py-2 text-sm">
              {t('chat.cancel')}
            </button>
            <button onClick={() => void save()} disabled={saving} aria-busy={saving} className="rounded-md bg-accent px-4 py-2 text-sm font-medium text-white disabled:opacity-70" data-testid="agent-save">
              {saving ? t('chat.saving') : t('chat.save')}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
