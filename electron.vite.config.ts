import { cpSync, mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { build as viteBuild, type Plugin } from 'vite'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

/**
 * The artifact runtime is a build of its own (its own React, sucrase, Pyodide's files)
 * in out/renderer/artifact-sandbox, served at /artifact-sandbox/ with the sandbox's policy.
 * Nothing of it can enter the app's chunks, and the app's chunks are not reachable from it.
 */
function artifactRuntime(): Plugin {
  const outDir = resolve('out/renderer/artifact-sandbox')
  return {
    name: 'switchboard-artifact-runtime',
    apply: 'build',
    async closeBundle() {
      await viteBuild({
        configFile: false,
        root: resolve('src/renderer/artifact-runtime'),
        base: './',
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true, minify: true, rollupOptions: { input: { index: resolve('src/renderer/artifact-runtime/index.html') } } }
      })
      // Pyodide loads these by URL at run time (the standard library only: offline, no CDN).
      const pyodide = resolve('node_modules/pyodide')
      mkdirSync(resolve(outDir, 'pyodide'), { recursive: true })
      for (const file of ['pyodide.js', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json']) cpSync(resolve(pyodide, file), resolve(outDir, 'pyodide', file))
    }
  }
}

// Main and preload run in Node/Electron and keep their npm dependencies external;
// the renderer is a plain web bundle that imports only `src/shared` (see docs/architecture.md).
export default defineConfig({
  main: {
    build: {
      // Everything in `dependencies` stays external (installed next to the app); devDependencies
      // that run in main are bundled: `ws` (the server only), zod and kysely (decision 21).
      externalizeDeps: true,
      rollupOptions: {
        // One build for the three Node entries (decision 21): the Electron main process, the
        // browser-mode server (`npm run serve`) and the `switchboard` CLI share their chunks of
        // core, and none of them needs a TypeScript loader at run time.
        input: {
          index: resolve('src/main/index.ts'),
          server: resolve('src/server/main.ts'),
          cli: resolve('src/cli/main.ts'),
          // The built-in engine's own process (llama.cpp): a crash there never takes the core down.
          'engine-host': resolve('src/main/engine-host.ts')
        }
      }
    }
  },
  preload: {
    build: {
      externalizeDeps: true,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        // A sandboxed preload cannot be an ES module; package.json has "type": "module",
        // so ask for CommonJS explicitly.
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: resolve('src/renderer'),
    // Relative asset URLs: browser mode serves the app under an unguessable path (the token
    // cookie is scoped to it), so nothing may be fetched from the server root.
    base: './',
    build: {
      outDir: resolve('out/renderer'),
      // electron-vite leaves the renderer unminified; minified, the entry chunk is a third of its size.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } }
    },
    plugins: [react(), tailwindcss(), artifactRuntime()]
  }
})
