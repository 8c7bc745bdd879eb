// Types for merge-mac-feeds.mjs.
export interface FeedFile {
  url: string
  sha512: string
  size?: number
  blockMapSize?: number
}
export interface MacFeed {
  version: string
  files: FeedFile[]
  path?: string
  sha512?: string
  releaseDate?: string
  [key: string]: unknown
}
export function mergeMacFeeds(feeds: MacFeed[]): MacFeed
export function parseFeed(text: string): MacFeed
export function formatFeed(feed: MacFeed): string
