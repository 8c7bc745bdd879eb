// `electron` is the stand-in's module, for import and require alike, as Electron's built-in is.
import { registerHooks } from 'node:module'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'

const shim = pathToFileURL(join(import.meta.dirname, 'electron.cjs')).href
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'electron') return { url: shim, format: 'commonjs', shortCircuit: true }
    return next(specifier, context)
  }
})
