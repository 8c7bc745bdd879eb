import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Copy, Play } from 'lucide-react'
import type { AgentTestResult, CodingAgent } from '../../../shared/bridge/procedures/local-api'
import { bridge } from '../../stores/app-store'
import { agentExamples } from './local-api-text'

const input = 'mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700'
const button = 'inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

type Tested = AgentTestResult | { ok: false; message: string; fix?: undefined; status?: undefined; warning?: undefined }

/** "Use with coding agents": each agent's lines for this gateway, and a test of its first request. */
export function AgentsSection(props: { base: string; secret: string | undefined; canTest: boolean; copied: string | undefined; copy(id: string, text: string): void }) {
  const { t } = useTranslation()
  const [model, setModel] = useState('openai/gpt-4o-mini')
  const [busy, setBusy] = useState<CodingAgent>()
  const [results, setResults] = useState<Partial<Record<CodingAgent, Tested>>>({})

  const test = async (agent: CodingAgent) => {
    setBusy(agent)
    const r = await bridge().call('localApi.testAgent', { agent, model: model.trim() })
    setResults((now) => ({ ...now, [agent]: r.ok ? r.value : { ok: false, message: r.error.message } }))
    setBusy(undefined)
  }

  return (
    <section className="space-y-3" aria-labelledby="local-api-agents-title" data-testid="local-api-agents">
      <h3 id="local-api-agents-title" className="text-sm font-semibold">
        {t('localApi.agents')}
      </h3>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('localApi.agentsIntro')}</p>
      <label className="block w-80 text-sm font-medium">
        {t('localApi.agentModel')}
        <input className={input} value={model} onChange={(e) => setModel(e.target.value)} maxLength={400} data-testid="local-api-agent-model" />
      </label>
      {agentExamples(props.base, props.secret ?? '<your key>', model.trim() || '<model>').map((ex) => {
        const result = results[ex.id]
        // Product names stay as they are; the generic entry is words, so it is translated.
        const label = ex.id === 'openai' ? t('localApi.agentOpenAI') : ex.label
        return (
          <div key={ex.id} className="space-y-1" data-testid={`local-api-agent-${ex.id}`}>
            <div className="flex items-center gap-2">
              <span className="flex-1 text-xs font-medium text-zinc-500">{label}</span>
              <button type="button" className={button} onClick={() => props.copy(ex.id, ex.code)} data-testid={`local-api-copy-${ex.id}`}>
                <Copy size={14} aria-hidden /> {props.copied === ex.id ? t('localApi.copied') : t('localApi.copy')}
              </button>
              <button
                type="button"
                className={button}
                disabled={!props.canTest || busy !== undefined || !model.trim()}
                aria-label={t('localApi.testNamed', { name: label })}
                onClick={() => void test(ex.id)}
                data-testid={`local-api-test-${ex.id}`}
              >
                <Play size={14} aria-hidden /> {busy === ex.id ? t('localApi.testing') : t('localApi.test')}
              </button>
            </div>
            <pre className="overflow-x-auto rounded-md bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-900">{ex.code}</pre>
            <div aria-live="polite" data-testid={`local-api-test-result-${ex.id}`}>
              {result?.ok === true && (
                <p className="text-sm text-emerald-700 dark:text-emerald-400">{t('localApi.testOk', { ms: result.ms, text: result.text })}</p>
              )}
              {result?.ok === false && (
                <div className="text-sm text-red-600" role="alert">
                  <p>{t('localApi.testFailed', { status: result.status ? ` (${result.status})` : '', message: result.message })}</p>
                  {result.fix && <p>{t('localApi.testFix', { fix: result.fix })}</p>}
                </div>
              )}
              {result?.warning && <p className="text-sm text-amber-700 dark:text-amber-400">{t('localApi.testWarning', { warning: result.warning })}</p>}
            </div>
          </div>
        )
      })}
    </section>
  )
}
