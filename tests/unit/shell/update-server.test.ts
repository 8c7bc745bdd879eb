import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, request, type IncomingMessage, type RequestOptions, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { decideUpdate, updateErrorMessage } from '../../../src/main/policy/update-policy'

// electron-updater's own generic provider (its channel file names, YAML parsing, file URLs)
// and builder-util-runtime's download (progress, sha512 check) against a local update server.
// Only its HTTP executor's request needs Electron (net.request); here it is Node's http.
const require = createRequire(import.meta.url)
const { GenericProvider } = require('electron-updater/out/providers/GenericProvider.js') as {
  GenericProvider: new (
    config: { provider: 'generic'; url: string; channel?: string },
    updater: { channel: string | null; isAddNoCacheQuery: boolean },
    runtime: { executor: unknown; platform: NodeJS.Platform; isUseMultipleRangeRequest: boolean }
  ) => {
    getLatestVersion(): Promise<{ version: string; stagingPercentage?: number; files: { url: string; sha512: string; size: number }[] }>
    resolveFiles(info: unknown): { url: URL; info: { sha512: string } }[]
  }
}
const runtime = require('builder-util-runtime') as { CancellationToken: new () => object }
const { ElectronHttpExecutor } = require('electron-updater/out/electronHttpExecutor.js') as { ElectronHttpExecutor: new () => object }
/** electron-updater's executor (its download: progress, sha512, the file) with Node's http in place of Electron's net. */
class NodeHttpExecutor extends ElectronHttpExecutor {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void) {
    return request(options, callback)
  }
}
const executor = new NodeHttpExecutor() as unknown as { download(url: URL, destination: string, options: object): Promise<string> }

const appImage = randomBytes(300_000)
const sha512 = createHash('sha512').update(appImage).digest('base64')
const feeds: Record<string, string> = {
  '/desktop/latest-linux.yml': stringify({ version: '0.2.0', files: [{ url: 'Switchboard-0.2.0.AppImage', sha512, size: appImage.length }], path: 'Switchboard-0.2.0.AppImage', sha512, releaseDate: '2026-11-20T10:00:00.000Z', stagingPercentage: 30 }),
  '/desktop/latest.yml': stringify({ version: '0.2.0', files: [{ url: 'Switchboard-Setup-0.2.0.exe', sha512, size: appImage.length }], path: 'Switchboard-Setup-0.2.0.exe', sha512, releaseDate: '2026-11-20T10:00:00.000Z' }),
  '/desktop/beta-linux.yml': stringify({ version: '0.3.0-beta.1', files: [{ url: 'Switchboard-0.3.0-beta.1.AppImage', sha512, size: appImage.length }], path: 'Switchboard-0.3.0-beta.1.AppImage', sha512, releaseDate: '2026-11-24T10:00:00.000Z' })
}
const requested: string[] = []
let server: Server
let base: string
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname
    requested.push(path)
    if (feeds[path]) return void res.writeHead(200, { 'Content-Type': 'text/yaml' }).end(feeds[path])
    if (path === '/desktop/Switchboard-0.2.0.AppImage') return void res.writeHead(200, { 'Content-Length': appImage.length }).end(appImage)
    if (path === '/desktop/Switchboard-0.2.0-corrupt.AppImage') return void res.writeHead(200, { 'Content-Length': appImage.length }).end(Buffer.alloc(appImage.length))
    res.writeHead(404).end('not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/desktop`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const provider = (platform: NodeJS.Platform, channel: string | null = null) =>
  new GenericProvider({ provider: 'generic', url: base }, { channel, isAddNoCacheQuery: false }, { executor, platform, isUseMultipleRangeRequest: true })

describe('a generic update server', () => {
  it('serves latest-linux.yml to Linux and latest.yml to Windows, parsed by electron-updater', async () => {
    const linux = await provider('linux').getLatestVersion()
    expect(linux).toMatchObject({ version: '0.2.0', stagingPercentage: 30 })
    expect(requested).toContain('/desktop/latest-linux.yml')
    const windows = await provider('win32').getLatestVersion()
    expect(windows.files[0]!.url).toBe('Switchboard-Setup-0.2.0.exe')
    expect(requested).toContain('/desktop/latest.yml')
  })

  it('is decided by our rules: newer, on the channel, inside the rollout', async () => {
    const info = await provider('linux').getLatestVersion()
    const decide = (installId: string) => decideUpdate({ current: '0.1.0', offered: info.version, stagingPercentage: info.stagingPercentage, installId, channel: 'latest' })
    const installs = Array.from({ length: 400 }, (_, i) => `install-${i}`)
    const share = installs.filter((id) => decide(id).take).length / installs.length
    expect(share).toBeGreaterThan(0.2)
    expect(share).toBeLessThan(0.4)
    expect(decideUpdate({ current: '0.2.0', offered: info.version, installId: 'a', channel: 'latest' })).toMatchObject({ take: false, reason: 'not-newer' })
  })

  it('serves the beta channel from beta-linux.yml', async () => {
    const beta = await provider('linux', 'beta').getLatestVersion()
    expect(beta.version).toBe('0.3.0-beta.1')
    expect(decideUpdate({ current: '0.2.0', offered: beta.version, installId: 'a', channel: 'beta' })).toEqual({ take: true })
    expect(decideUpdate({ current: '0.2.0', offered: beta.version, installId: 'a', channel: 'latest' })).toMatchObject({ take: false, reason: 'other-channel' })
  })

  it('downloads the file with progress and checks its sha512', async () => {
    const info = await provider('linux').getLatestVersion()
    const [file] = provider('linux').resolveFiles(info)
    expect(file!.url.href).toBe(`${base}/Switchboard-0.2.0.AppImage`)
    const progress: number[] = []
    const dir = mkdtempSync(join(tmpdir(), 'sb-update-'))
    try {
      const destination = join(dir, 'Switchboard-0.2.0.AppImage')
      await executor.download(file!.url, destination, { sha512: file!.info.sha512, cancellationToken: new runtime.CancellationToken(), onProgress: (p: { percent: number }) => progress.push(p.percent) })
      expect(readFileSync(destination).equals(appImage)).toBe(true)
      expect(progress.at(-1)).toBe(100)
      const corrupt = executor.download(new URL(`${base}/Switchboard-0.2.0-corrupt.AppImage`), join(dir, 'corrupt'), { sha512: file!.info.sha512, cancellationToken: new runtime.CancellationToken() })
      const error = await corrupt.catch((e: unknown) => e)
      expect(String(error)).toMatch(/sha512 checksum mismatch/)
      expect(updateErrorMessage(error, base)).toMatch(/^The downloaded update was damaged/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a server without the channel file, or none at all, is said in words', async () => {
    const missing = await provider('darwin').getLatestVersion().catch((e: unknown) => e)
    expect((missing as { code?: string }).code).toBe('ERR_UPDATER_CHANNEL_FILE_NOT_FOUND')
    expect(updateErrorMessage(missing, base)).toBe(`The update server at ${base} has no update for this system yet (latest-mac.yml is missing).`)
    expect(updateErrorMessage(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), base)).toBe(`The update server at ${base} could not be reached (ECONNREFUSED). Check your connection; Switchboard tries again later.`)
  })
})
