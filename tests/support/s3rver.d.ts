// s3rver ships no types; this is the part of its API the test servers use.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net'

  interface S3rverContext {
    method: string
    path: string
    query: Record<string, unknown>
    status: number
    type: string
    body: unknown
    get(header: string): string
    store: S3rverStore
  }
  interface S3rverStore {
    existsObject(bucket: string, key: string): Promise<boolean>
    putBucket(bucket: string): Promise<void>
    putObject(object: unknown): Promise<unknown>
  }
  type Middleware = (ctx: S3rverContext, next: () => Promise<void>) => Promise<void>

  export default class S3rver {
    constructor(options: {
      address?: string
      port?: number
      silent?: boolean
      directory?: string
      resetOnClose?: boolean
      configureBuckets?: Array<{ name: string; configs: unknown[] }>
    })
    middleware: Middleware[]
    store: S3rverStore
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
