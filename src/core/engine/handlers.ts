import { AppErrorException } from '../../shared/errors/app-error'
import type { Contract } from '../../shared/bridge/contract'
import type { engineProcedures } from '../../shared/bridge/procedures/engine'
import type { BuiltinSettings, BuiltinStatus } from '../../shared/engine/builtin-status'
import { defaultThreads, formatBytes, type BuiltinEngine } from './'
import { engineAppError } from '../runtime/providers/builtin/builtin-runtime'
import type { Implementation } from '../bridge/router'
import { refuseHostPaths, type CallerEnv } from '../security/client-policy'

type EngineNames = keyof typeof engineProcedures & keyof Contract
type EngineHandlers = Pick<Implementation<Contract>, EngineNames>

const fail = (error: unknown): never => {
  throw new AppErrorException(engineAppError(error, 'builtin'))
}

async function status(engine: BuiltinEngine): Promise<BuiltinStatus> {
  const [{ models, problems }, ps] = await Promise.all([engine.list(), engine.ps()])
  const out: BuiltinStatus = {
    models: models.map((m) => ({ id: m.id, name: m.name, source: m.source, path: m.path, sizeBytes: m.sizeBytes, loaded: m.loaded, ...(m.contextSize ? { contextSize: m.contextSize } : {}), ...(m.projectorPath ? { projector: true } : {}) })),
    problems: problems.map((p) => ({ source: p.source, path: p.path, message: p.message, ...(p.name ? { name: p.name } : {}) })),
    running: ps.running,
    budgetBytes: ps.budgetBytes,
    totalBytes: ps.totalBytes,
    threads: ps.threads,
    spawnKind: ps.spawnKind,
    modelPaths: [...engine.settings.get().modelPaths],
    settings: userSettings(engine),
    defaults: { budgetBytes: engine.defaultBudgetBytes, threads: defaultThreads(engine.cpuCount), cpuCount: engine.cpuCount },
    loaded: ps.models.map((m) => ({
      modelId: m.modelId,
      name: m.name,
      contextSize: m.contextSize,
      slots: m.slots,
      contextReason: m.contextReason,
      weightsBytes: m.weightsBytes,
      contextBytes: m.contextBytes,
      ...(m.trainedContextSize ? { trainedContextSize: m.trainedContextSize } : {}),
      ...(m.expiresAt ? { expiresAt: m.expiresAt } : {})
    }))
  }
  if (ps.rssBytes !== undefined) out.rssBytes = ps.rssBytes
  return out
}

function userSettings(engine: BuiltinEngine): BuiltinSettings {
  const { keepAliveMs, memoryBudgetBytes, threads, contextSizes } = engine.settings.get()
  return { keepAliveMs, contextSizes: { ...contextSizes }, ...(memoryBudgetBytes ? { memoryBudgetBytes } : {}), ...(threads ? { threads } : {}) }
}

const invalid = (message: string): never => {
  throw new AppErrorException({ errorType: 'ValidationError', status: 400, message })
}

/** The built-in engine on the Local models page. */
/** `caller`: a folder or file to scan is a host path, for the desktop and the CLI only (the client policy). */
export function engineHandlers(caller: CallerEnv, builtinEngine: () => BuiltinEngine): EngineHandlers {
  return {
    'engine.status': () => status(builtinEngine()),
    'engine.load': async ({ model, loadAnyway }) => {
      const engine = builtinEngine()
      const plan = await engine.load(model, { loadAnyway: loadAnyway === true }).catch(fail)
      const loaded = (await status(engine)).loaded.find((m) => m.modelId === plan.modelId)
      return loaded ?? { modelId: plan.modelId, name: plan.name, contextSize: plan.contextSize, contextReason: plan.contextReason, weightsBytes: plan.weightsBytes, contextBytes: plan.contextBytes }
    },
    'engine.unload': async ({ model }) => ({ unloaded: await builtinEngine().unload(model).catch(fail) }),
    'engine.addPath': async ({ path }) => {
      refuseHostPaths(caller)
      const engine = builtinEngine()
      const paths = engine.settings.get().modelPaths
      if (!paths.includes(path)) engine.settings.update({ modelPaths: [...paths, path] })
      await engine.discover(true)
      return status(engine)
    },
    'engine.plan': async ({ model, contextSize }) => {
      const plan = await builtinEngine().plan(model, contextSize ? { contextSize } : {}).catch(fail)
      const { modelId, name, contextReason, weightsBytes, contextBytes, neededBytes, budgetBytes, trainedContextSize } = plan
      return { modelId, name, contextSize: plan.contextSize, slots: plan.slots, contextReason, weightsBytes, contextBytes, neededBytes, budgetBytes, ...(trainedContextSize ? { trainedContextSize } : {}) }
    },
    'engine.setSettings': async ({ keepAliveMs, memoryBudgetBytes, threads, contextSize }) => {
      const engine = builtinEngine()
      if (memoryBudgetBytes && memoryBudgetBytes > engine.totalBytes)
        invalid(`A memory budget of ${formatBytes(memoryBudgetBytes)} is more than this computer's memory (${formatBytes(engine.totalBytes)}); choose at most that.`)
      if (threads && threads > engine.cpuCount) invalid(`${threads} threads is more than the ${engine.cpuCount} cores of this computer; choose at most ${engine.cpuCount}.`)
      const patch: Parameters<BuiltinEngine['updateSettings']>[0] = {}
      if (keepAliveMs !== undefined) patch.keepAliveMs = keepAliveMs
      // A field left out is kept; null puts the default back.
      if (memoryBudgetBytes !== undefined) patch.memoryBudgetBytes = memoryBudgetBytes ?? undefined
      if (threads !== undefined) patch.threads = threads ?? undefined
      if (contextSize) {
        // Built from entries, never assigned by key: a model may be named `__proto__`.
        const sizes = Object.entries(engine.settings.get().contextSizes).filter(([model]) => model !== contextSize.model)
        if (contextSize.size !== null) sizes.push([contextSize.model, contextSize.size])
        patch.contextSizes = Object.fromEntries(sizes)
      }
      engine.updateSettings(patch)
      return status(engine)
    },
    'engine.removePath': async ({ path }) => {
      refuseHostPaths(caller)
      const engine = builtinEngine()
      engine.settings.update({ modelPaths: engine.settings.get().modelPaths.filter((p) => p !== path) })
      await engine.discover(true)
      return status(engine)
    }
  }
}
