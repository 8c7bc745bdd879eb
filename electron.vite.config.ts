import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

// Main and preload run in Node/Electron and keep their npm dependencies external;
// the renderer is a plain web bundle that imports only `src/shared` (see docs/architecture.md).
export default defineConfig({
  main: {
    build: {
      // Everything in `dependencies` stays external (installed next to the app); devDependencies
      // that run in main are bundled: `ws` (the server only), zod and kysely (decision 19).
      externalizeDeps: true,
      rollupOptions: {
        // One build for the three Node entries (decision 19): the Electron main process, the
        // browser-mode server (`npm run serve`) and the `switchboard` CLI share their chunks of
        // core, and none of them needs a TypeScript loader at run time.
        input: { index: resolve('src/main/index.ts'), server: resolve('src/server/main.ts'), cli: resolve('src/cli/main.ts') }
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
    plugins: [react(), tailwindcss()]
  }
})
