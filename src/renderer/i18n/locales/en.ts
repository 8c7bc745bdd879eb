export const en = {
  app: { name: 'Switchboard', tagline: 'Every model, one place' },
  nav: { chat: 'Chat', images: 'Images', localModels: 'Local models', settings: 'Settings', primary: 'Main navigation' },
  init: {
    title: 'Starting Switchboard',
    idle: 'Waiting to start',
    initializing: 'Getting ready',
    loadingDependencies: 'Loading the catalogue and the keychain',
    loadingWasm: 'Loading the engine',
    migrating: 'Updating your local data',
    finished: 'Almost there',
    ready: 'Ready',
    error: 'Switchboard could not start',
    retry: 'Try again',
    step: 'Step {{n}} of {{total}}'
  },
  connection: { connecting: 'Connecting to the core…', reconnecting: 'Connection lost, reconnecting…' },
  unlock: {
    title: 'Unlock Switchboard',
    description: 'This Switchboard is protected with an access password.',
    password: 'Access password',
    submit: 'Unlock',
    checking: 'Checking…'
  },
  errors: {
    pageTitle: 'Something went wrong',
    pageBody: 'This page hit an unexpected error. Your conversations are safe; reload the page or go back home.',
    backHome: 'Back home',
    reload: 'Reload',
    notFoundTitle: 'Page not found',
    notFoundBody: 'We could not find that page. Check the address, or go back home.',
    InvalidAccessCode: 'The password is wrong or empty. Enter the access password, or add your own API key in Settings.'
  },
  pages: {
    chatTitle: 'Chat',
    chatEmpty: 'Pick a model and start a conversation.',
    imagesTitle: 'Images',
    imagesEmpty: 'Generate images with any image model you have a key for.',
    localTitle: 'Local models',
    localEmpty: 'Models running on your own machine through Ollama, LM Studio, vLLM and Xinference.',
    settingsTitle: 'Settings'
  },
  settings: {
    appearance: 'Appearance',
    theme: 'Theme',
    themes: { light: 'Light', dark: 'Dark', system: 'System' },
    language: 'Language',
    about: 'About',
    version: 'Version {{version}}',
    mode: { desktop: 'Desktop app', browser: 'Browser mode', test: 'Test' }
  }
}

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> }
export type Messages = Widen<typeof en>
