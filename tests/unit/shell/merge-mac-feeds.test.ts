import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { formatFeed, mergeMacFeeds, parseFeed, type MacFeed } from '../../../scripts/packaging/merge-mac-feeds.mjs'

// What each Mac is offered, read the way electron-updater reads it: its YAML parsing and file
// list (Provider), then MacUpdater's choice by processor and its pick of the zip.
const require = createRequire(import.meta.url)
const provider = require('electron-updater/out/providers/Provider.js') as {
  parseUpdateInfo(raw: string, channelFile: string, url: URL): unknown
  resolveFiles(info: unknown, baseUrl: URL): Array<{ url: URL; info: { url: string } }>
  findFile(files: Array<{ url: URL }>, extension: string, not?: string[]): { url: URL } | undefined
}
const { MacUpdater } = require('electron-updater/out/MacUpdater.js') as {
  MacUpdater: { filterFilesForArch<T>(files: T[], isArm64Mac: boolean): T[] }
}
const root = resolve(import.meta.dirname, '../../..')
const base = new URL('https://updates.example.test/desktop/')

/** The zip electron-updater downloads on this Mac from this latest-mac.yml text, or undefined. */
function offered(feedText: string, mac: 'arm64' | 'x64'): string | undefined {
  const info = provider.parseUpdateInfo(feedText, 'latest-mac.yml', new URL('latest-mac.yml', base))
  const files = MacUpdater.filterFilesForArch(provider.resolveFiles(info, base), mac === 'arm64')
  return provider.findFile(files, 'zip', ['pkg', 'dmg'])?.url.pathname.split('/').pop()
}

/** latest-mac.yml as electron-builder writes it for one architecture's run. */
function feedOf(arch: 'arm64' | 'x64', extra: Record<string, unknown> = {}): MacFeed {
  const zip = arch === 'arm64' ? 'Switchboard-1.2.0-arm64-mac.zip' : 'Switchboard-1.2.0-mac.zip'
  const sha512 = Buffer.from(`${arch}-zip`).toString('base64')
  return { version: '1.2.0', files: [{ url: zip, sha512, size: arch === 'arm64' ? 101 : 102 }], path: zip, sha512, releaseDate: arch === 'arm64' ? '2026-12-01T10:00:00.000Z' : '2026-12-01T11:00:00.000Z', ...extra }
}

const work = mkdtempSync(join(tmpdir(), 'sb-mac-feed-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('the macOS feed of a release built in two runs', () => {
  it('uploading each run’s feed as it is leaves one architecture without its build', () => {
    // The x64 run came last: its latest-mac.yml replaced the arm64 one.
    const lastWritten = formatFeed(feedOf('x64'))
    expect(offered(lastWritten, 'arm64')).toBe('Switchboard-1.2.0-mac.zip')
  })

  it('the merged feed offers each Mac its own zip, through electron-updater’s own reading', () => {
    const merged = formatFeed(mergeMacFeeds([feedOf('arm64'), feedOf('x64')]))
    expect(offered(merged, 'arm64')).toBe('Switchboard-1.2.0-arm64-mac.zip')
    expect(offered(merged, 'x64')).toBe('Switchboard-1.2.0-mac.zip')
    const feed = parseFeed(merged)
    // An updater that reads only the single-file fields gets the build that runs on both.
    expect(feed.path).toBe('Switchboard-1.2.0-mac.zip')
    expect(feed.releaseDate).toBe('2026-12-01T11:00:00.000Z')
  })

  it('keeps the staged rollout share, and refuses feeds that do not belong together', () => {
    expect(mergeMacFeeds([feedOf('arm64', { stagingPercentage: 10 }), feedOf('x64', { stagingPercentage: 10 })]).stagingPercentage).toBe(10)
    expect(() => mergeMacFeeds([feedOf('arm64', { stagingPercentage: 10 }), feedOf('x64')])).toThrow(/differ in stagingPercentage/)
    expect(() => mergeMacFeeds([feedOf('arm64'), { ...feedOf('x64'), version: '1.1.0' }])).toThrow(/different versions/)
    expect(() => mergeMacFeeds([feedOf('arm64'), feedOf('arm64')])).toThrow(/one arm64 zip and one x64 zip/)
    expect(() => mergeMacFeeds([feedOf('x64')])).toThrow(/each macOS build/)
    expect(() => mergeMacFeeds([feedOf('arm64'), { version: '1.2.0' } as MacFeed])).toThrow(/no version or no files/)
  })

  it('the script merges the two files the README names', () => {
    writeFileSync(join(work, 'arm64.yml'), formatFeed(feedOf('arm64')))
    writeFileSync(join(work, 'x64.yml'), formatFeed(feedOf('x64')))
    execFileSync(process.execPath, [join(root, 'scripts/packaging/merge-mac-feeds.mjs'), join(work, 'arm64.yml'), join(work, 'x64.yml'), '--out', join(work, 'latest-mac.yml')])
    const merged = readFileSync(join(work, 'latest-mac.yml'), 'utf8')
    expect(offered(merged, 'arm64')).toBe('Switchboard-1.2.0-arm64-mac.zip')
    expect(offered(merged, 'x64')).toBe('Switchboard-1.2.0-mac.zip')
  })
})
