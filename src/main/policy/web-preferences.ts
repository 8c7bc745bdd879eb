/** The webPreferences of every Switchboard window (DESIGN §6). Pure so it can be unit-tested. */
export interface SecureWebPreferences {
  preload: string
  contextIsolation: true
  sandbox: true
  nodeIntegration: false
  nodeIntegrationInWorker: false
  nodeIntegrationInSubFrames: false
  webSecurity: true
  allowRunningInsecureContent: false
  experimentalFeatures: false
  webviewTag: false
  navigateOnDragDrop: false
  /** No Blink runtime features beyond the defaults (an empty list). */
  enableBlinkFeatures: ''
  safeDialogs: true
  spellcheck: boolean
  devTools: boolean
}

export function secureWebPreferences(options: { preload: string; devTools: boolean }): SecureWebPreferences {
  return {
    preload: options.preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    enableBlinkFeatures: '',
    safeDialogs: true,
    spellcheck: true,
    devTools: options.devTools
  }
}
