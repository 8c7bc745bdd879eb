import { join } from 'node:path'

/**
 * The window icon: Linux window managers take it from the window (there is no bundle icon as on
 * macOS, and Windows uses the executable's). Packaged, `resources/` is copied beside the app
 * (extraResources); in a checkout it is the repository's folder.
 */
export function windowIconPath(platform: NodeJS.Platform, isPackaged: boolean, resourcesPath: string, appPath: string): string | undefined {
  if (platform !== 'linux') return undefined
  return isPackaged ? join(resourcesPath, 'resources', 'icon.png') : join(appPath, 'resources', 'icon.png')
}
