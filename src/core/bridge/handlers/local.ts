import type { Contract } from '../../../shared/bridge/contract'
import type { localProcedures } from '../../../shared/bridge/procedures/local'
import type { Implementation } from '../router'
import type { LocalFeature } from '../../local'
import { ollamaDiskSpace } from '../../local/disk-space'
import { normaliseOllamaBaseUrl } from '../../runtime/providers/ollama/ollama-client'

type LocalNames = keyof typeof localProcedures & keyof Contract
type LocalHandlers = Pick<Implementation<Contract>, LocalNames>

export function localHandlers(local: LocalFeature): LocalHandlers {
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
    'local.pull.start': ({ model, baseUrl, insecure }) => local.pulls.start({ model, baseUrl, insecure }),
    'local.pull.watch': ({ id }, { signal }) => local.pulls.watch(id, signal),
    'local.pull.cancel': ({ id }) => ({ cancelled: local.pulls.cancel(id) }),
    'local.pull.dismiss': ({ id }) => ({ dismissed: local.pulls.dismiss(id) }),
    'local.pull.list': () => local.pulls.list()
  }
}
