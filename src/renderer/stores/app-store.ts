import { create } from 'zustand'
import type { InitState } from '../../shared/app/init-state'
import type { MenuCommand } from '../../shared/bridge/desktop-port'
import type { AppInfo } from '../../shared/bridge/procedures/app'
import type { AppError } from '../../shared/errors/app-error'
import { connect, type Connection, type ConnectionState } from '../bridge/connect'
import { i18n, type Language } from '../i18n'

export type ThemePreference = 'light' | 'dark' | 'system'

interface AppState {
  connection: ConnectionState
  info?: AppInfo
  init: InitState
  /** Browser mode with an access password, before it was given. */
  locked: boolean
  unlockError?: AppError
  theme: ThemePreference
  language: Language
  setTheme(theme: ThemePreference): void
  setLanguage(language: Language): void
  unlock(password: string): Promise<boolean>
  retryInit(): Promise<void>
}

const SESSION_KEY = 'switchboard.sessionKey'
const THEME_KEY = 'switchboard.theme'

const storedTheme = (): ThemePreference => {
  const value = localStorage.getItem(THEME_KEY)
  return value === 'light' || value === 'dark' || value === 'system' ? value : 'system'
}

export function applyTheme(theme: ThemePreference, prefersDark = matchMedia('(prefers-color-scheme: dark)').matches): void {
  const dark = theme === 'dark' || (theme === 'system' && prefersDark)
  document.documentElement.classList.toggle('dark', dark)
  document.documentElement.dataset['theme'] = dark ? 'dark' : 'light'
}

let connection: Connection | undefined

/** The bridge client, once connected (stores of other features use it). */
export const bridge = () => {
  if (!connection) throw new Error('The bridge is not connected yet')
  return connection.client
}

export const useApp = create<AppState>()((set) => ({
  connection: 'connecting',
  init: { phase: 'idle', at: Date.now() },
  locked: false,
  theme: storedTheme(),
  language: (i18n.language as Language) ?? 'en',
  setTheme(theme) {
    localStorage.setItem(THEME_KEY, theme)
    applyTheme(theme)
    set({ theme })
  },
  setLanguage(language) {
    localStorage.setItem('switchboard.language', language)
    void i18n.changeLanguage(language)
    document.documentElement.lang = language
    set({ language })
  },
  async unlock(password) {
    const result = await bridge().authenticate({ password })
    if (!result.ok) {
      set({ unlockError: result.error })
      return false
    }
    sessionStorage.setItem(SESSION_KEY, result.value.sessionKey)
    set({ locked: false, unlockError: undefined })
    // Before the password the server tells only what the unlock page needs; ask again.
    const info = await bridge().call('app.info', {})
    if (info.ok) set({ info: info.value })
    await afterUnlock()
    return true
  },
  async retryInit() {
    await bridge().call('app.retryInit', {})
    followInit()
  }
}))

function followInit() {
  bridge().stream(
    'app.initProgress',
    {},
    {
      onEvent: (state) => useApp.setState({ init: state })
    }
  )
}

async function afterUnlock() {
  followInit()
}

/** Connects to the core once, outside React, and wires the stores to it. */
export async function startApp(): Promise<void> {
  applyTheme(useApp.getState().theme)
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(useApp.getState().theme))
  document.documentElement.lang = useApp.getState().language
  connection = connect((state) => useApp.setState({ connection: state }), {
    beforeResume: async (client) => {
      if (!useApp.getState().info?.passwordRequired) return
      const sessionKey = sessionStorage.getItem(SESSION_KEY)
      const resumed = sessionKey ? await client.authenticate({ sessionKey }) : undefined
      // The session expired or was signed out elsewhere: ask for the password again.
      if (!resumed?.ok) {
        sessionStorage.removeItem(SESSION_KEY)
        useApp.setState({ locked: true })
      }
    }
  })
  const info = await connection.client.call('app.info', {})
  if (!info.ok) return
  useApp.setState({ info: info.value })
  if (info.value.passwordRequired) {
    const sessionKey = sessionStorage.getItem(SESSION_KEY)
    const resumed = sessionKey ? await connection.client.authenticate({ sessionKey }) : undefined
    if (!resumed?.ok) {
      useApp.setState({ locked: true })
      return
    }
  }
  followInit()
}

export const onMenuCommand = (listener: (command: MenuCommand) => void) => connection?.onMenu(listener) ?? (() => undefined)
