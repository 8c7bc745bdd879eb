import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Core } from '../core'
import { newTransfer, transferPath } from '../core/store/transfers'
import { PRIVATE_FILE_MODE } from '../core/files/private-files'

/** Larger than any export we write; a cap so a client cannot fill the disk through this door. */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024

const json = (res: ServerResponse, status: number, body: object) => {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(JSON.stringify(body))
}

/**
 * Browser mode's way to move import and export files: plain HTTP, streamed to and from disk,
 * instead of one WebSocket frame (which broke at 64 MB). Behind the same checks as the socket:
 * the loopback token (cookie) and, with an access password, a session key the page got from
 * `auth` (header `X-Switchboard-Session`); a page from another site is refused by Origin.
 *
 *   POST /data/upload              body: the file → { transferId } for data.importFile
 *   GET  /data/download/<id>?name= → the file data.exportFile wrote for this browser
 *
 * Returns false when the request is not for these routes.
 */
export function handleDataTransfer(req: IncomingMessage, res: ServerResponse, url: URL, core: Core, tokenOk: boolean): boolean {
  if (!url.pathname.startsWith('/data/')) return false
  const access = core.context.access
  const origin = req.headers.origin
  const sameOrigin = !origin || origin === `http://${req.headers.host}` || origin === `https://${req.headers.host}`
  const session = req.headers['x-switchboard-session']
  const allowed = sameOrigin && (access?.password ? typeof session === 'string' && access.sessionKeys.has(session) : tokenOk)
  if (!allowed) {
    json(res, access?.password ? 401 : 403, { error: 'Not allowed: sign in first.' })
    return true
  }
  if (req.method === 'POST' && url.pathname === '/data/upload') {
    upload(req, res, core.context.dataDir)
    return true
  }
  const download = /^\/data\/download\/([A-Za-z0-9_-]{8,64})$/.exec(url.pathname)
  if ((req.method === 'GET' || req.method === 'HEAD') && download) {
    const path = transferPath(core.context.dataDir, download[1]!)
    let size: number
    try {
      size = statSync(path!).size
    } catch {
      json(res, 404, { error: 'This export is no longer available; export again.' })
      return true
    }
    const name = (url.searchParams.get('name') ?? 'switchboard-export.json').replace(/[^\w.-]/g, '_').slice(0, 100)
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(size), 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' })
    if (req.method === 'HEAD') res.end()
    else createReadStream(path!).pipe(res)
    return true
  }
  json(res, 404, { error: 'No such data route.' })
  return true
}

function upload(req: IncomingMessage, res: ServerResponse, dataDir: string): void {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > MAX_UPLOAD_BYTES) {
    json(res, 413, { error: 'The file is too large to import.' })
    req.resume()
    return
  }
  const { id, path } = newTransfer(dataDir)
  const out = createWriteStream(path, { mode: PRIVATE_FILE_MODE })
  let received = 0
  let failed = false
  const fail = (status: number, error: string) => {
    if (failed) return
    failed = true
    out.destroy()
    rmSync(path, { force: true })
    if (!res.headersSent) json(res, status, { error })
    req.resume()
  }
  req.on('data', (chunk: Buffer) => {
    received += chunk.length
    if (received > MAX_UPLOAD_BYTES) fail(413, 'The file is too large to import.')
  })
  req.on('aborted', () => fail(400, 'The upload was interrupted.'))
  out.on('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOSPC' ? 507 : 500, error.code === 'ENOSPC' ? 'The disk is full; free some space and try again.' : 'The upload could not be saved.'))
  out.on('finish', () => {
    if (!failed) json(res, 200, { transferId: id, bytes: received })
  })
  req.pipe(out)
}
