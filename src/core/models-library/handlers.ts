import type { Contract } from '../../shared/bridge/contract'
import type { modelsLibraryProcedures } from '../../shared/bridge/procedures/models-library'
import { AppErrorException } from '../../shared/errors/app-error'
import type { DownloadSnapshot } from '../../shared/models-library/types'
import type { Implementation } from '../bridge/router'
import { refuseDownloadAddresses, type CallerEnv } from '../security/client-policy'
import { abortedByShutdown, type StreamHub } from '../bridge/stream-hub'
import { DownloadError } from './file-download'
import type { ModelsLibraryFeature } from './models-library'

type Names = keyof typeof modelsLibraryProcedures & keyof Contract
type Handlers = Pick<Implementation<Contract>, Names>

/** The library's own failures as the bridge's errors: the message names the fix. */
async function mapped<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof DownloadError) {
      const status = error.code === 'notFound' ? 404 : error.code === 'unauthorized' ? 401 : error.code === 'gated' ? 403 : error.code === 'diskFull' ? 507 : 400
      throw new AppErrorException({ errorType: 'ModelLibraryError', status, message: error.message })
    }
    throw error
  }
}

/** A download is a task of the hub (kind `download`): one task per download, cancelling it pauses nothing but cancels the download. */
export function downloadTask(hub: StreamHub, feature: ModelsLibraryFeature, snap: DownloadSnapshot): string {
  const existing = hub.find('download', (m) => m.downloadId === snap.id)
  if (existing) return existing.id
  return hub.start(
    'models.download.watch',
    (signal) => {
      // The user's cancel removes the download; the app quitting only stops the stream (the library
      // then keeps the bytes and the record, and the next start resumes the download).
      signal.addEventListener('abort', () => abortedByShutdown(signal) || void feature.library.downloads.cancel(snap.id), { once: true })
      return feature.library.downloads.watch(snap.id)
    },
    { kind: 'download', meta: { downloadId: snap.id, ref: snap.ref } }
  )
}

export function modelsLibraryHandlers(feature: ModelsLibraryFeature, hub: StreamHub, caller: CallerEnv): Handlers {
  const lib = feature.library
  const settings = async () => {
    const saved = await lib.settings()
    return { hubEndpoint: saved.hubEndpoint ?? null, proxy: saved.proxy ?? null, ollamaRegistry: saved.ollamaRegistry ?? null, hasHfToken: Boolean(await feature.hfToken()) }
  }
  return {
    'models.search': ({ query, sources }) => mapped(() => lib.search(query, sources)),
    'models.repo': ({ repo, contextTokens }) => mapped(() => lib.repo(repo, contextTokens)),
    'models.download.start': ({ ref, force, contextTokens }) =>
      mapped(async () => {
        const { snapshot } = await lib.pull(ref, { force, contextTokens })
        return { ...snapshot, taskId: downloadTask(hub, feature, snapshot) }
      }),
    'models.download.watch': ({ id }, { signal }) => lib.downloads.watch(id, signal),
    'models.download.list': () => lib.downloads.list(),
    'models.download.pause': ({ id }) => ({ paused: lib.downloads.pause(id) }),
    'models.download.resume': ({ id }) => {
      const snapshot = lib.downloads.resume(id)
      return { ...snapshot, taskId: downloadTask(hub, feature, snapshot) }
    },
    'models.download.cancel': async ({ id }) => ({ cancelled: await lib.downloads.cancel(id) }),
    'models.download.dismiss': ({ id }) => ({ dismissed: lib.downloads.dismiss(id) }),
    'models.recommended': () => lib.recommended(),
    'models.onDisk': () => lib.onDisk(),
    'models.remove': ({ path, confirmOtherApp }) => mapped(async () => ({ deleted: (await lib.remove(path, { confirmOtherApp })).deleted })),
    'models.settings.get': () => settings(),
    'models.settings.set': (patch) => {
      refuseDownloadAddresses(caller, patch, ['hubEndpoint', 'proxy', 'ollamaRegistry'])
      const { hubEndpoint, proxy, ollamaRegistry, hfToken } = patch
      return mapped(async () => {
        // Each field given is changed (null or empty clears it); the others stay as they were.
        if (hubEndpoint !== undefined || proxy !== undefined || ollamaRegistry !== undefined) {
          const current = await lib.settings()
          await lib.setSettings({
            ...current,
            ...(hubEndpoint !== undefined ? { hubEndpoint: hubEndpoint ?? '' } : {}),
            ...(proxy !== undefined ? { proxy: proxy ?? '' } : {}),
            ...(ollamaRegistry !== undefined ? { ollamaRegistry: ollamaRegistry ?? '' } : {})
          })
        }
        if (hfToken !== undefined) await feature.setHfToken(hfToken)
        return settings()
      })
    }
  }
}
