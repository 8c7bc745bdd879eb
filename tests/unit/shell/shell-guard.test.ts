import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { secureWebPreferences } from '../../../src/main/policy/web-preferences'
import { guardWebContents, isAllowedFrameNavigation, type GuardedContents } from '../../../src/main/policy/web-contents-guard'
import { IPC_CHANNEL } from '../../../src/shared/bridge/protocol'

const origins = { appOrigin: 'app://switchboard' }

/**
 * Electron cannot run on these machines, so web contents are stood in for by an emitter that
 * emits Electron's own event names with Electron's argument shapes (electron.d.ts).
 */
class Contents extends EventEmitter {
  openHandler?: (details: { url: string }) => { action: 'deny' }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }) {
    this.openHandler = handler
  }
  /** Emits like Electron: returns whether a listener called preventDefault. */
  fire(name: string, ...args: unknown[]): boolean {
    let prevented = false
    const event = { preventDefault: () => (prevented = true) }
    if (name === 'will-frame-navigate') this.emit(name, { ...event, ...(args[0] as object) })
    else this.emit(name, event, ...args)
    return prevented
  }
}

function guarded() {
  const contents = new Contents()
  const opened: string[] = []
  guardWebContents(contents as unknown as GuardedContents, origins, (url) => opened.push(url))
  return { contents, opened }
}

describe('webPreferences not yet covered', () => {
  it('turns off experimental features, drag-and-drop navigation and extra Blink features', () => {
    const prefs = secureWebPreferences({ preload: '/x/preload.cjs', devTools: false }) as unknown as Record<string, unknown>
    expect(prefs['experimentalFeatures']).toBe(false)
    expect(prefs['navigateOnDragDrop']).toBe(false)
    expect(prefs['enableBlinkFeatures'] ?? '').toBe('')
    expect(prefs['webviewTag']).toBe(false)
  })
})

describe('web contents guard', () => {
  it('stops any frame navigating away from the app (will-frame-navigate)', () => {
    const { contents } = guarded()
    expect(contents.fire('will-frame-navigate', { url: 'https://evil.example/', isMainFrame: false })).toBe(true)
    expect(contents.fire('will-frame-navigate', { url: 'file:///etc/passwd', isMainFrame: false })).toBe(true)
    expect(contents.fire('will-frame-navigate', { url: 'https://evil.example/', isMainFrame: true })).toBe(true)
    expect(contents.fire('will-frame-navigate', { url: 'blob:https://evil.example/1234', isMainFrame: false })).toBe(true)
    expect(contents.fire('will-frame-navigate', { url: 'app://switchboard/index.html#/chat', isMainFrame: true })).toBe(false)
    expect(contents.fire('will-frame-navigate', { url: 'blob:app://switchboard/5b1c', isMainFrame: false })).toBe(false)
    expect(contents.fire('will-frame-navigate', { url: 'blob:app://switchboard/5b1c', isMainFrame: true })).toBe(true)
  })

  it('prevents every <webview> from attaching', () => {
    const { contents } = guarded()
    expect(contents.fire('will-attach-webview', {}, {})).toBe(true)
  })

  it('keeps will-navigate and will-redirect within the app', () => {
    const { contents } = guarded()
    expect(contents.fire('will-navigate', 'https://evil.example/')).toBe(true)
    expect(contents.fire('will-redirect', 'javascript:alert(1)')).toBe(true)
    expect(contents.fire('will-navigate', 'app://switchboard/index.html')).toBe(false)
  })

  it('never opens a window; safe links go to the OS browser, mailto only with message fields', () => {
    const { contents, opened } = guarded()
    for (const url of ['https://example.com/a', 'mailto:a@example.com?subject=Hi&body=there&cc=b@example.com', 'mailto:a@example.com?attach=/etc/passwd', 'mailto:a@example.com?Attachment=~/.ssh/id_rsa', 'file:///etc/passwd']) {
      expect(contents.openHandler!({ url })).toEqual({ action: 'deny' })
    }
    expect(opened).toEqual(['https://example.com/a', 'mailto:a@example.com?subject=Hi&body=there&cc=b@example.com'])
  })

  it('is installed on every web contents the app creates', () => {
    const main = readFileSync('src/main/index.ts', 'utf8')
    expect(main).toMatch(/web-contents-created[\s\S]*guardWebContents\(contents/)
  })

  it('lets subframes show about:blank, not other about: pages', () => {
    expect(isAllowedFrameNavigation('about:blank', false, origins)).toBe(true)
    expect(isAllowedFrameNavigation('about:blank', true, origins)).toBe(false)
    expect(isAllowedFrameNavigation('chrome://settings', false, origins)).toBe(false)
  })
})

const electron = vi.hoisted(() => ({
  exposed: [] as [string, unknown][],
  sent: [] as [string, unknown][],
  listeners: new Map<string, (event: unknown, payload: unknown) => void>()
}))
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.push([key, api]) },
  ipcRenderer: {
    send: (channel: string, payload: unknown) => electron.sent.push([channel, payload]),
    on: (channel: string, listener: (event: unknown, payload: unknown) => void) => electron.listeners.set(channel, listener),
    off: (channel: string) => electron.listeners.delete(channel)
  }
}))

describe('preload', () => {
  it('exposes one port and nothing else: no ipcRenderer, no event objects, one channel', async () => {
    await import('../../../src/preload/index')
    expect(electron.exposed.map(([key]) => key)).toEqual(['switchboardPort'])
    const port = electron.exposed[0]![1] as Record<string, unknown>
    expect(Object.keys(port).sort()).toEqual(['onMenu', 'onMessage', 'send'])
    for (const value of Object.values(port)) expect(typeof value).toBe('function')
    const api = port as { send(m: unknown): void; onMessage(l: (m: unknown) => void): () => void; onMenu(l: (c: unknown) => void): () => void }
    api.send({ t: 'call', id: 1, proc: 'diag.echo', input: {} })
    expect(electron.sent).toEqual([[IPC_CHANNEL, { t: 'call', id: 1, proc: 'diag.echo', input: {} }]])
    const received: unknown[] = []
    const off = api.onMessage((m) => received.push(m))
    const sender = { sender: 'ipcRenderer event with sender and ports' }
    electron.listeners.get(IPC_CHANNEL)!(sender, { t: 'result', id: 1 })
    expect(received).toEqual([{ t: 'result', id: 1 }]) // the event (and its sender) never reaches the page
    off()
    expect(electron.listeners.has(IPC_CHANNEL)).toBe(false)
    const commands: unknown[] = []
    api.onMenu((c) => commands.push(c))
    // The menu channel is typed: a known command arrives; anything else (an object that only
    // stringifies to one, an unknown name) is dropped.
    electron.listeners.get('switchboard:menu')!(sender, { toString: () => 'new-chat' })
    electron.listeners.get('switchboard:menu')!(sender, 'format-disk')
    electron.listeners.get('switchboard:menu')!(sender, 'new-chat')
    expect(commands).toEqual(['new-chat'])
    // Whatever the preload returns is plain data or a function, never Electron's objects.
    expect(api.onMessage(() => undefined)).toBeTypeOf('function')
  })
})

describe('an artifact in its own window (issue 18)', () => {
  const page = 'app://switchboard/artifact-sandbox/index.html'

  it('is the one window the app opens: the artifact page of its own protocol, no preload, sandboxed', () => {
    const { contents, opened } = guarded()
    const decision = contents.openHandler!({ url: `${page}#eyJhIjoxfQ%3D%3D` }) as unknown as { action: string; overrideBrowserWindowOptions: { webPreferences: Record<string, unknown> } }
    expect(decision.action).toBe('allow')
    const prefs = decision.overrideBrowserWindowOptions.webPreferences
    expect(prefs).not.toHaveProperty('preload')
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webviewTag: false })
    expect((contents.openHandler!({ url: `${page}?net=1#x` }) as { action: string }).action).toBe('allow')
    expect(opened).toEqual([])
  })

  it.each([
    ['the app itself', 'app://switchboard/index.html#/chat'],
    ['another path of the runtime', 'app://switchboard/artifact-sandbox/pyodide/pyodide.js'],
    ['other query parameters', `${page}?net=1&x=2`],
    ['another host of the scheme', 'app://evil/artifact-sandbox/index.html'],
    ['credentials in the address', 'app://user@switchboard/artifact-sandbox/index.html'],
    ['the loopback runtime of browser mode', 'http://localhost:5405/artifact-sandbox/index.html']
  ])('opens no window for %s', (_name, url) => {
    const { contents } = guarded()
    expect(contents.openHandler!({ url })).toEqual({ action: 'deny' })
  })

  it('keeps the artifact window on the artifact page, and lets it open nothing', () => {
    const { contents } = guarded()
    const child = new Contents()
    contents.emit('did-create-window', { webContents: child }, { url: page })
    expect(child.fire('will-navigate', 'app://switchboard/index.html')).toBe(true)
    expect(child.fire('will-redirect', 'https://evil.example/')).toBe(true)
    expect(child.fire('will-navigate', `${page}#other`)).toBe(false)
    expect(child.openHandler!({ url: `${page}#again` })).toEqual({ action: 'deny' })
    expect(child.openHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
  })
})
