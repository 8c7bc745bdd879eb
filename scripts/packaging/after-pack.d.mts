// Types for after-pack.mjs (electron-builder's afterPack hook).
export default function afterPack(context: {
  appOutDir: string
  electronPlatformName: string
  arch: number
  packager: { appInfo: { productFilename: string } }
}): Promise<void>
