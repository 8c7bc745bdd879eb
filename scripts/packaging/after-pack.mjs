// @ts-check
// electron-builder's afterPack hook (electron-builder.yml): before signing and the installers,
// check that the packed app carries the target's own native files (see native-targets.mjs).
import { join } from 'node:path'
import { archName, checkPackedNatives } from './native-targets.mjs'

/** @param {{ appOutDir: string, electronPlatformName: string, arch: number, packager: { appInfo: { productFilename: string } } }} context */
export default async function afterPack(context) {
  const platform = context.electronPlatformName
  const arch = archName(context.arch)
  const resourcesDir =
    platform === 'darwin' || platform === 'mas'
      ? join(context.appOutDir, `${context.packager.appInfo.productFilename}.app`, 'Contents', 'Resources')
      : join(context.appOutDir, 'resources')
  const { errors, warnings } = checkPackedNatives({ resourcesDir, platform, arch })
  for (const warning of warnings) console.warn(`  • native check: ${warning}`)
  if (errors.length > 0) {
    throw new Error(`The ${platform} ${arch} app lacks native files it needs:\n  - ${errors.join('\n  - ')}`)
  }
}
