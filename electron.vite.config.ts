import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

// Main and preload run in Node/Electron and keep their npm dependencies external;
// the renderer is a plain web bundle that imports only `src/shared` (see docs/architecture.md).
export default defineConfig({
  main: {
    build: {
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve('src/main/index.ts') } }
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
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } }
    },
    plugins: [react(), tailwindcss()]
  }
})
