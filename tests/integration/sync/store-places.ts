import { afterAll, beforeAll } from 'vitest'
import type { SyncStoreConfig } from '../../../src/shared/bridge/procedures/sync'
import { startPostgres, startS3Server, startWebdavServer, type PostgresServer, type S3Server, type WebdavServer } from '../../support/sync-servers'
import { newFolderStore } from './devices'

export type StoreKind = 'folder' | 's3' | 'webdav' | 'postgres'
/** A new, empty place in a store, as a user would configure it, and the secret it takes (none for a folder). */
export type StorePlace = () => Promise<{ config: SyncStoreConfig; secret?: string }>

/**
 * The four stores sync runs through, on loopback: a folder, s3rver, `rclone serve webdav` and a
 * fresh PostgreSQL cluster (tests/support/sync-servers.ts), started before the file's tests and
 * stopped after them. Each call of a place gives a new, empty one (a prefix, a folder made over
 * WebDAV as a client would — rclone's directory cache does not see folders made on its disk — or
 * a schema), named after `prefix`.
 */
export function useStorePlaces(prefix: string): Record<StoreKind, StorePlace> {
  let s3: S3Server
  let dav: WebdavServer
  let pg: PostgresServer
  let fresh = 0
  beforeAll(async () => {
    ;[s3, dav, pg] = await Promise.all([startS3Server(), startWebdavServer(), startPostgres()])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([s3?.stop(), dav?.stop(), pg?.stop()])
  })
  return {
    folder: async () => ({ config: newFolderStore() }),
    s3: async () => ({
      config: { kind: 's3', endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix: `${prefix}-${++fresh}`, accessKeyId: s3.accessKeyId, forcePathStyle: true },
      secret: s3.secretAccessKey
    }),
    webdav: async () => {
      const folder = `${prefix}-${++fresh}`
      const made = await fetch(`${dav.url}${folder}/`, { method: 'MKCOL', headers: { authorization: `Basic ${Buffer.from(`${dav.username}:${dav.password}`).toString('base64')}` } })
      if (made.status !== 201) throw new Error(`MKCOL ${folder}: ${made.status}`)
      return { config: { kind: 'webdav', url: `${dav.url}${folder}/`, username: dav.username }, secret: dav.password }
    },
    postgres: async () => {
      const schema = `${prefix}_${++fresh}`
      await pg.admin(`CREATE SCHEMA ${schema} AUTHORIZATION ${pg.user}`)
      return { config: { kind: 'postgres', host: pg.host, port: pg.port, database: pg.database, user: pg.user, schema }, secret: pg.password }
    }
  }
}
