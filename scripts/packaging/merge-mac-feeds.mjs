#!/usr/bin/env node
// @ts-check
// The macOS update feed of a release built in two runs (arm64, then x64: README "Release
// builds"). Each run writes its own latest-mac.yml (beta-mac.yml on the beta channel) naming only
// its zip, so uploading both would leave the feed of whichever came last: Intel Macs offered
// nothing, or Apple Silicon Macs moved to the Intel build. This joins them: one feed whose files
// list both zips; electron-updater's MacUpdater picks the file with "arm64" in its name on Apple
// Silicon and the other on Intel.
//
//   node scripts/packaging/merge-mac-feeds.mjs dist-arm64/latest-mac.yml dist-x64/latest-mac.yml --out latest-mac.yml
import { readFileSync, writeFileSync } from 'node:fs'
import { parse, stringify } from 'yaml'

const isArm64 = (/** @type {{ url: string }} */ file) => file.url.includes('arm64')

/**
 * @typedef {{ url: string, sha512: string, size?: number, blockMapSize?: number }} FeedFile
 * @typedef {{ version: string, files: FeedFile[], path?: string, sha512?: string, releaseDate?: string, [key: string]: unknown }} MacFeed
 */

/**
 * One feed from the feeds of one release's macOS builds. Refuses feeds of different versions, a
 * field that differs between them (release notes, staged rollout share…), or a set that does not
 * have exactly one arm64 zip and one other.
 * @param {MacFeed[]} feeds
 * @returns {MacFeed}
 */
export function mergeMacFeeds(feeds) {
  if (feeds.length < 2) throw new Error('Give the latest-mac.yml of each macOS build (arm64 and x64).')
  for (const feed of feeds) {
    if (!feed || typeof feed.version !== 'string' || !Array.isArray(feed.files) || feed.files.length === 0) throw new Error('A feed has no version or no files: give the latest-mac.yml electron-builder wrote.')
  }
  const versions = [...new Set(feeds.map((f) => f.version))]
  if (versions.length > 1) throw new Error(`The feeds are of different versions (${versions.join(', ')}): build both architectures of one release.`)
  /** @type {Map<string, FeedFile>} */
  const files = new Map()
  for (const feed of feeds) {
    for (const file of feed.files) {
      const known = files.get(file.url)
      if (known && known.sha512 !== file.sha512) throw new Error(`${file.url} appears in two feeds with different contents: rebuild one of them.`)
      files.set(file.url, file)
    }
  }
  const zips = [...files.values()].filter((f) => f.url.endsWith('.zip'))
  const armZips = zips.filter(isArm64)
  if (armZips.length !== 1 || zips.length - armZips.length !== 1) {
    throw new Error(`Expected one arm64 zip and one x64 zip, found: ${zips.map((z) => z.url).join(', ') || 'none'}.`)
  }
  // Every other field must agree (a rollout share or release notes set on one build only would be lost).
  const ignored = new Set(['files', 'path', 'sha512', 'releaseDate'])
  /** @type {Record<string, unknown>} */
  const rest = {}
  const keys = new Set(feeds.flatMap((f) => Object.keys(f)).filter((k) => !ignored.has(k)))
  for (const key of keys) {
    const values = new Set(feeds.map((f) => JSON.stringify(f[key])))
    if (values.size > 1) throw new Error(`The feeds differ in ${key}: set it the same for both builds.`)
    rest[key] = feeds[0]?.[key]
  }
  // The legacy single-file fields name the x64 zip: an updater that reads only them runs it on
  // either processor (Rosetta), never the arm64 one on Intel.
  const x64Zip = zips.find((z) => !isArm64(z))
  const dates = feeds.map((f) => f.releaseDate).filter((d) => typeof d === 'string').sort()
  return {
    ...rest,
    version: versions[0],
    files: [...files.values()],
    path: x64Zip?.url,
    sha512: x64Zip?.sha512,
    ...(dates.length ? { releaseDate: dates[dates.length - 1] } : {})
  }
}

/** @param {string} text @returns {MacFeed} */
export const parseFeed = (text) => parse(text)
/** @param {MacFeed} feed */
export const formatFeed = (feed) => stringify(feed, { lineWidth: 0 })

const invoked = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))
if (invoked) {
  const args = process.argv.slice(2)
  const outAt = args.indexOf('--out')
  const out = outAt >= 0 ? args[outAt + 1] : undefined
  const inputs = args.filter((_, i) => outAt < 0 || (i !== outAt && i !== outAt + 1))
  try {
    const merged = formatFeed(mergeMacFeeds(inputs.map((file) => parseFeed(readFileSync(file, 'utf8')))))
    if (out) writeFileSync(out, merged)
    else process.stdout.write(merged)
  } catch (error) {
    process.stderr.write(`merge-mac-feeds: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
