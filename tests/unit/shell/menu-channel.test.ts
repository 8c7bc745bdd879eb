import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { buildMenuTemplate } from '../../../src/main/policy/menu'
import { MENU_CHANNEL, MENU_COMMANDS, type DesktopPort } from '../../../src/shared/bridge/desktop-port'
import { IPC_CHANNEL } from '../../../src/shared/bridge/protocol'

const root = resolve(import.meta.dirname, '../../..')
type Item = ReturnType<typeof buildMenuTemplate>[number]
const ids = (items: Item[]): string[] => items.flatMap((i) => [...(i.id ? [i.id] : []), ...(i.submenu ? ids(i.submenu) : [])])

/**
 * Runs the built preload (out/preload/index.cjs, what Electron loads) with a stand-in for the
 * two Electron objects it touches, and returns the port it exposes plus a way to play main.
 */
function loadPreload() {
  const code = readFileSync(join(root, 'out/preload/index.cjs'), 'utf8')
  const handlers = new Map<string, Set<(event: unknown, payload: unknown) => void>>()
  let exposed: { name: string; api: DesktopPort } | undefined
  const electron = {
    contextBridge: { exposeInMainWorld: (name: string, api: DesktopPort) => (exposed = { name, api }) },
    ipcRenderer: {
      send: () => undefined,
      on: (channel: string, h: (event: unknown, payload: unknown) => void) => handlers.set(channel, (handlers.get(channel) ?? new Set()).add(h)),
      off: (channel: string, h: (event: unknown, payload: unknown) => void) => handlers.get(channel)?.delete(h)
    }
  }
  const module = { exports: {} }
  runInNewContext(code, { require: (id: string) => (id === 'electron' ? electron : undefined), module, exports: module.exports })
  const fromMain = (channel: string, payload: unknown) => handlers.get(channel)?.forEach((h) => h({}, payload))
  return { exposed: exposed!, fromMain, handlers }
}

describe('the menu channel is part of the desktop contract', () => {
  it('every menu command has a menu item and every menu item with an id is a command', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) expect(ids(buildMenuTemplate(platform)).sort()).toEqual([...MENU_COMMANDS].sort())
  })

  it('the built preload passes the contract’s commands to the page and drops anything else', () => {
    expect(existsSync(join(root, 'out/preload/index.cjs'))).toBe(true)
    const { exposed, fromMain, handlers } = loadPreload()
    expect(exposed.name).toBe('switchboardPort')
    expect(Object.keys(exposed.api).sort()).toEqual(['onMenu', 'onMessage', 'send'])
    const seen: string[] = []
    const off = exposed.api.onMenu((command) => seen.push(command))
    fromMain(MENU_CHANNEL, 'new-chat')
    fromMain(MENU_CHANNEL, 'rm -rf')
    fromMain(MENU_CHANNEL, { toString: () => 'new-chat' })
    expect(seen).toEqual(['new-chat'])
    off()
    expect(handlers.get(MENU_CHANNEL)?.size).toBe(0)
    expect(MENU_CHANNEL).not.toBe(IPC_CHANNEL)
  })
})
