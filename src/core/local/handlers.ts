import type { Contract } from '../../shared/bridge/contract'
import type { localProcedures } from '../../shared/bridge/procedures/local'
import type { Implementation } from '../bridge/router'
import type { LocalFeature } from './'
import { ollamaDiskSpace } from './disk-space'
import { normaliseOllamaBaseUrl } from '../runtime/providers/ollama/ollama-client'
import type { StreamHub } from '../bridge/stream-hub'

type LocalNames = keyof typeof localProcedures & keyof Contract
type LocalHandlers = Pick<Implementation<Contract>, LocalNames>

/**
 * A pull is a task of the hub (kind `pull`): its stream replays the pull's snapshots to
 * whoever follows it, and cancelling the task cancels the pull. One task per pull, however
 * many times the same model is asked for.
 */
function pullTask(hub: StreamHub, local: LocalFeature, pullId: string, model: string, baseUrl: string): string {
  const existing = hub.find('pull', (m) => m.pullId === pullId)
  if (existing) return existing.id
  return hub.start(
    'local.pull.watch',
    (signal) => {
      signal.addEventListener('abort', () => local.pulls.cancel(pullId), { once: true })
      return local.pulls.watch(pullId)
    },
    { kind: 'pull', meta: { pullId, model, baseUrl } }
  )
}

export function localHandlers(local: LocalFeature, hub: StreamHub): LocalHandlers {
  const ollamaUrl = (baseUrl?: string) => normaliseOllamaBaseUrl(baseUrl ?? local.detection.baseUrl('ollama'))
  return {
    'local.detect': ({ kinds }) => local.detection.detect(kinds),
    'local.setBaseUrl': ({ kind, baseUrl }) => local.detection.setBaseUrl(kind, baseUrl),
    'local.ollama.models': ({ baseUrl }) => local.ollama.list(baseUrl && ollamaUrl(baseUrl)),
    'local.ollama.running': ({ baseUrl }) => local.ollama.running(baseUrl && ollamaUrl(baseUrl)),
    'local.ollama.show': ({ model, baseUrl }) => local.ollama.show(model, baseUrl && ollamaUrl(baseUrl)),
    'local.ollama.delete': async ({ model, baseUrl }) => {
      await local.ollama.remove(model, baseUrl && ollamaUrl(baseUrl))
      return { deleted: model }
    },
    'local.disk': async ({ baseUrl }) => (await ollamaDiskSpace(ollamaUrl(baseUrl))) ?? null,
    'local.pull.start': ({ model, baseUrl, insecure }) => {
      const snapshot = local.pulls.start({ model, baseUrl, insecure })
      return { ...snapshot, taskId: pullTask(hub, local, snapshot.id, snapshot.model, snapshot.baseUrl) }
    },
    'local.pull.watch': ({ id }, { signal }) => local.pulls.watch(id, signal),
    'local.pull.cancel': ({ id }) => ({ cancelled: local.pulls.cancel(id) }),
    'local.pull.dismiss': ({ id }) => ({ dismissed: local.pulls.dismiss(id) })
  }
}
