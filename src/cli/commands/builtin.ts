import type { CliCommand, CliIO } from '../command'
import { parseFlags, UsageError } from '../command'

import type * as EngineNs from '../../core/engine'

type EngineModule = typeof EngineNs

const USAGE = `switchboard builtin list|load|unload|ps [NAME] [--load-anyway] [--data-dir DIR] [--json]
  list          models found on disk (Ollama's, LM Studio's, the app's models folder, added files), with the context and memory a load would take
  load NAME     load a model into the engine and report its real memory use and context (NAME: an id from list, or an absolute .gguf path)
  unload NAME   unload a model
  ps            what the app running on this data folder has loaded in its engine (desktop or serve)
The CLI runs its own engine for the length of one command: load and unload act on that one, never
on the app's (load and unload those on the app's Local models page; ps shows them).`

type AppState = ReturnType<EngineModule['appEngineState']>

/** "the desktop app, process 1234" (and the machine when it is another one). */
const who = (app: NonNullable<AppState>): string => `${app.holder.app}, process ${app.holder.pid}`

/** Points the engine at the app's data folder (its models folder and engine settings). Lazy: only commands that use the engine load it. */
export async function configureCliEngine(flags: Map<string, string | true>, env: NodeJS.ProcessEnv): Promise<EngineModule> {
  const [{ dataDirFrom }, engine] = await Promise.all([import('../data-dir'), import('../../core/engine')])
  engine.configureBuiltinEngine({ dataDir: dataDirFrom(flags, env) })
  return engine
}

const pad = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('   ').trimEnd()).join('\n') + '\n'
}

export const builtinCommand: CliCommand = {
  name: 'builtin',
  summary: 'Models of the built-in engine: list, load, unload, ps',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json', 'load-anyway'], strings: ['data-dir'] })
    const [action, name] = positionals
    const json = flags.get('json') === true
    const { builtinEngine, closeBuiltinEngine, formatBytes, appEngineState } = await configureCliEngine(flags, io.env)
    const engine = builtinEngine()
    // The app running on the same data folder (it holds the folder's lock) has an engine of its own.
    const app = appEngineState((await import('../data-dir')).dataDirFrom(flags, io.env))
    try {
      switch (action) {
        case 'list': {
          const { models, problems } = await engine.list()
          const plans = await Promise.all(models.map((m) => engine.plan(m.id).catch((e: unknown) => (e instanceof Error ? e.message : String(e)))))
          if (json) {
            io.stdout.write(`${JSON.stringify({ models: models.map((m, i) => ({ ...m, plan: plans[i] })), problems })}\n`)
            return 0
          }
          if (!models.length) io.stdout.write('No GGUF models found. Add one in the app (Local models), pull one with Ollama, or run a file: switchboard chat builtin/ABSOLUTE/PATH.gguf\n')
          else {
            const rows = models.map((m, i) => {
              const p = plans[i]!
              return [m.id, m.source, formatBytes(m.sizeBytes), typeof p === 'string' ? '' : p.contextSize.toLocaleString('en'), typeof p === 'string' ? `unusable: ${p}` : formatBytes(p.neededBytes)]
            })
            io.stdout.write(pad([['NAME', 'SOURCE', 'SIZE', 'CONTEXT', 'MEMORY'], ...rows]))
          }
          for (const p of problems) io.stderr.write(`warning: ${p.message}\n`)
          return 0
        }
        case 'load': {
          if (!name) throw new UsageError('load needs a model name')
          await engine.load(name, { loadAnyway: flags.get('load-anyway') === true })
          if (app)
            io.stderr.write(
              `note: loaded in this command's own engine, which stops when the command ends; the app on this data folder (${who(app)}) is not affected. Load a model in the app on its Local models page.\n`
            )
          const ps = await engine.ps()
          if (json) io.stdout.write(`${JSON.stringify(ps)}\n`)
          else {
            const m = ps.models[0]!
            io.stdout.write(
              `Loaded ${m.name}: context ${m.contextSize.toLocaleString('en')} tokens (${m.contextReason}), weights ${formatBytes(m.weightsBytes)}, context memory ${formatBytes(m.contextBytes)}; engine process ${formatBytes(ps.rssBytes ?? 0)} resident, ${ps.threads} thread(s).\n`
            )
          }
          return 0
        }
        case 'unload': {
          if (!name) throw new UsageError('unload needs a model name')
          const inApp = app?.state?.models.find((m) => m.modelId === name || m.name === name)
          if (inApp) {
            const at = inApp.expiresAt ? ` (its keep-alive unloads it at ${new Date(inApp.expiresAt).toISOString().slice(11, 16)} UTC)` : ''
            io.stderr.write(`${name} is loaded in the app's engine (${who(app!)}), not in this command's; unload it on the app's Local models page${at}.\n`)
            return 1
          }
          const done = await engine.unload(name)
          io.stdout.write(json ? `${JSON.stringify({ unloaded: done })}\n` : done ? `Unloaded ${name}.\n` : `${name} is not loaded.\n`)
          return 0
        }
        case 'ps': {
          // This command's engine has loaded nothing (it has just started): what there is to see is the app's.
          const ps = await engine.ps()
          const appModels = app?.state?.models ?? []
          if (json) {
            io.stdout.write(`${JSON.stringify({ ...ps, ...(app ? { app: { pid: app.holder.pid, owner: app.holder.app, host: app.holder.host, models: appModels } } : {}) })}\n`)
            return 0
          }
          if (!app) io.stdout.write('No app is running on this data folder, so no engine has a model loaded (the CLI runs its own engine for one command only).\n')
          else if (!appModels.length) io.stdout.write(`The app on this data folder (${who(app)}) has no model loaded.\n`)
          else {
            io.stdout.write(`The app on this data folder (${who(app)}) has loaded:\n`)
            const until = (m: (typeof appModels)[number]) => (m.expiresAt ? `${new Date(m.expiresAt).toISOString().slice(11, 16)} UTC` : 'kept')
            io.stdout.write(pad([['NAME', 'CONTEXT', 'WEIGHTS', 'CONTEXT MEMORY', 'UNLOADS'], ...appModels.map((m) => [m.modelId, m.contextSize.toLocaleString('en'), formatBytes(m.weightsBytes), formatBytes(m.contextBytes), until(m)])]))
          }
          if (app) io.stdout.write("This command cannot load or unload models in the app's engine; use the app's Local models page.\n")
          return 0
        }
        default:
          throw new UsageError(action ? `unknown action '${action}'` : 'an action is needed')
      }
    } finally {
      await closeBuiltinEngine()
    }
  }
}
