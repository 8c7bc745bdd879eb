import { app } from 'electron'
import { loaderEnvToRemove } from './policy/launch-env'

// Imported first by index.ts: runs at start-up, before the core's start-up step loads the
// keychain addon (which reads NAPI_RS_NATIVE_LIBRARY_PATH when it loads). No module loads a
// native addon while being imported.
for (const name of loaderEnvToRemove(process.env, app.isPackaged)) delete process.env[name]
