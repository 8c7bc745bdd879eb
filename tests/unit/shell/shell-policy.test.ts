import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { secureWebPreferences } from '../../../src/main/policy/web-preferences'
import { decidePermission, isTrustedSenderUrl } from '../../../src/main/policy/permissions'
import { resolveAppRequest } from '../../../src/main/policy/app-protocol'
import { fitToDisplays, parseWindowState, DEFAULT_WINDOW } from '../../../src/main/policy/window-state'
import { buildMenuTemplate } from '../../../src/main/policy/menu'
import { buildContentSecurityPolicy } from '../../../src/shared/security/csp'

const origins = { appOrigin: 'app://switchboard' }

describe('webPreferences factory', () => {
  it('isolates and sandboxes every window', () => {
    const prefs = secureWebPreferences({ preload: '/x/preload.cjs', devTools: false })
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
      preload: '/x/preload.cjs'
    })
  })
})

describe('Content-Security-Policy', () => {
  const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]))

  it('gives the desktop renderer no network of its own and no inline scripts', () => {
    const d = directives(buildContentSecurityPolicy({ mode: 'desktop' }))
    expect(d.get('connect-src')).toEqual(["'self'"])
    expect(d.get('script-src')).toEqual(["'self'"])
    expect(d.get('object-src')).toEqual(["'none'"])
    expect(d.get('frame-ancestors')).toEqual(["'none'"])
    expect(d.get('default-src')).toEqual(["'self'"])
  })

  it('lets browser mode open its own bridge socket and no other, still without inline scripts', () => {
    const d = directives(buildContentSecurityPolicy({ mode: 'browser', socketOrigin: 'ws://127.0.0.1:5199' }))
    expect(d.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:5199'])
    // A Host header that tries to add sources is not copied into the policy.
    const injected = directives(buildContentSecurityPolicy({ mode: 'browser', socketOrigin: 'ws://a; script-src *' }))
    expect(injected.get('connect-src')).toEqual(["'self'"])
    expect(injected.get('script-src')).toEqual(["'self'"])
    expect(d.get('script-src')).toEqual(["'self'"])
  })

  it('allows the dev server only in development', () => {
    const d = directives(buildContentSecurityPolicy({ mode: 'desktop', dev: true, devServer: 'http://localhost:5173' }))
    expect(d.get('connect-src')).toContain('http://localhost:5173')
    expect(d.get('connect-src')).toContain('ws://localhost:5173')
  })
})

describe('permission handler', () => {
  it('denies every permission request except microphone for the app itself', () => {
    for (const p of ['geolocation', 'notifications', 'midi', 'openExternal', 'clipboard-read', 'display-capture', 'fullscreen', 'unknown']) {
      expect(decidePermission(p, 'app://switchboard/index.html', origins)).toBe(false)
    }
    expect(decidePermission('media', 'app://switchboard/index.html', origins, { mediaTypes: ['audio'] })).toBe(true)
    expect(decidePermission('media', 'app://switchboard/index.html', origins, { mediaTypes: ['video'] })).toBe(false)
    expect(decidePermission('media', 'app://switchboard/index.html', origins, { mediaTypes: ['audio', 'video'] })).toBe(false)
    expect(decidePermission('media', 'https://evil.example', origins, { mediaTypes: ['audio'] })).toBe(false)
  })
})

describe('IPC sender check', () => {
  it('serves only frames showing the app origin', () => {
    expect(isTrustedSenderUrl('app://switchboard/index.html#/chat', origins)).toBe(true)
    expect(isTrustedSenderUrl('https://evil.example/', origins)).toBe(false)
    expect(isTrustedSenderUrl('app://switchboard.evil/', origins)).toBe(false)
    expect(isTrustedSenderUrl('file:///index.html', origins)).toBe(false)
    expect(isTrustedSenderUrl(undefined, origins)).toBe(false)
    expect(isTrustedSenderUrl('about:blank', origins)).toBe(false)
    expect(isTrustedSenderUrl('http://localhost:5173/', { ...origins, devOrigin: 'http://localhost:5173' })).toBe(true)
  })
})

describe('app:// protocol', () => {
  const dir = '/opt/switchboard/renderer'
  it('serves files inside the renderer folder', () => {
    expect(resolveAppRequest('app://switchboard/index.html', dir)).toBe(join(dir, 'index.html'))
    expect(resolveAppRequest('app://switchboard/assets/a.js', dir)).toBe(join(dir, 'assets/a.js'))
    expect(resolveAppRequest('app://switchboard/', dir)).toBe(join(dir, 'index.html'))
    expect(resolveAppRequest('app://switchboard/settings', dir)).toBe(join(dir, 'index.html'))
  })
  it('refuses other hosts and every way out of the folder', () => {
    expect(resolveAppRequest('app://other/index.html', dir)).toBeUndefined()
    expect(resolveAppRequest('app://switchboard/..%2f..%2fetc%2fpasswd', dir)).toBeUndefined()
    // The URL parser already folds encoded dot segments, so this one lands inside the folder.
    const dots = resolveAppRequest('app://switchboard/%2e%2e/%2e%2e/etc/passwd', dir)
    expect(dots === undefined || dots.startsWith(dir + '/')).toBe(true)
    expect(resolveAppRequest('app://switchboard/a%5c..%5c..%5cx.txt', dir)).toBeUndefined()
    expect(resolveAppRequest('app://switchboard/a%00.js', dir)).toBeUndefined()
    expect(resolveAppRequest('app://switchboard/%E0%A4%A', dir)).toBeUndefined()
    expect(resolveAppRequest('https://switchboard/index.html', dir)).toBeUndefined()
    expect(resolveAppRequest('not a url', dir)).toBeUndefined()
  })
})

describe('window state', () => {
  const primary = { x: 0, y: 0, width: 1920, height: 1080 }
  it('restores a window where it was when that display still exists', () => {
    const saved = { bounds: { x: 100, y: 80, width: 1200, height: 800 }, maximized: true }
    expect(fitToDisplays(saved, [primary])).toEqual(saved)
  })
  it('brings a window back from an unplugged monitor, centred on the primary display', () => {
    const saved = { bounds: { x: 3000, y: 100, width: 1200, height: 800 }, maximized: false }
    expect(fitToDisplays(saved, [primary]).bounds).toEqual({ x: 360, y: 140, width: 1200, height: 800 })
  })
  it('shrinks a window larger than the screen, and uses defaults without a saved state', () => {
    const huge = { bounds: { x: 0, y: 0, width: 5000, height: 4000 }, maximized: false }
    const fitted = fitToDisplays(huge, [primary]).bounds
    expect(fitted.width).toBeLessThanOrEqual(1920)
    expect(fitted.height).toBeLessThanOrEqual(1080)
    expect(fitToDisplays(undefined, [primary]).bounds.width).toBe(DEFAULT_WINDOW.bounds.width)
  })
  it('rejects malformed saved state', () => {
    expect(parseWindowState(null)).toBeUndefined()
    expect(parseWindowState({ bounds: { x: 'a', y: 0, width: 1, height: 1 } })).toBeUndefined()
    expect(parseWindowState({ bounds: { x: 0, y: 0, width: Infinity, height: 1 } })).toBeUndefined()
  })
})

describe('application menu', () => {
  const roles = (items: ReturnType<typeof buildMenuTemplate>): string[] =>
    items.flatMap((i) => [...(i.role ? [i.role] : []), ...(i.submenu ? roles(i.submenu) : [])])
  it('has the usual roles and a macOS app menu only on macOS', () => {
    const mac = buildMenuTemplate('darwin')
    const win = buildMenuTemplate('win32')
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'reload', 'togglefullscreen', 'minimize']) {
      expect(roles(mac)).toContain(role)
      expect(roles(win)).toContain(role)
    }
    expect(roles(mac)).toContain('hide')
    expect(roles(win)).not.toContain('hide')
    expect(mac[0]?.label).toBe('Switchboard')
  })
})
