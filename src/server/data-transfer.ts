import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Core } from '../core'
import type { BrowserRoute } from './server'
import { newTransfer, sweepTransfers, TOO_LARGE, TRANSFER_LIMITS, TRANSFERS_FULL, transferPath, transfersSize, type TransferLimits } from '../core/store/transfers'
import { PRIVATE_FILE_MODE } from '../core/files/private-files'

export { MAX_TRANSFERS_BYTES, MAX_UPLOAD_BYTES, type TransferLimits } from '../core/store/transfers'

const json = (res: ServerResponse, status: number, body: object) => {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(JSON.stringify(body))
}

/**
 * Browser mode's way to move import and export files: plain HTTP, streamed to and from disk,
 * instead of one WebSocket frame (which broke at 64 MB). A route of the browser server, so it
 * is asked only after the Host and token checks; `signedIn` is the server's word that this
 * browser is past the token or holds a live password session (bound to its cookie). A page
 * from another site is refused by Origin as well.
 *
 *   POST <app path>data/upload              body: the file → { transferId } for data.importFile or knowledge.upload
 *   GET  <app path>data/download/<id>?name= → the file data.exportFile wrote for this browser
 */
export const dataTransferRoute = (core: Core, limits: TransferLimits = TRANSFER_LIMITS): BrowserRoute => {
  // What a previous run left (an upload cut by a crash, an export never downloaded) is of no use now.
  sweepTransfers(core.context.dataDir)
  return (req, res, { path, signedIn }) => {
    if (!path.startsWith('/data/')) return false
    const origin = req.headers.origin
    const sameOrigin = !origin || origin === `http://${req.headers.host}` || origin === `https://${req.headers.host}`
    if (!sameOrigin || !signedIn) {
      json(res, core.context.access?.password ? 401 : 403, { error: 'Not allowed: sign in first.' })
      return true
    }
    if (req.method === 'POST' && path === '/data/upload') {
      upload(req, res, core.context.dataDir, limits)
      return true
    }
    const download = /^\/data\/download\/([A-Za-z0-9_-]{8,64})$/.exec(path)
    if ((req.method === 'GET' || req.method === 'HEAD') && download) {
      const file = transferPath(core.context.dataDir, download[1]!)
      let size: number
      try {
        size = statSync(file!).size
      } catch {
        json(res, 404, { error: 'This export is no longer available; export again.' })
        return true
      }
      const requested = new URL(req.url ?? '/', 'http://localhost').searchParams.get('name')
      const name = (requested ?? 'switchboard-export.json').replace(/[^\w.-]/g, '_').slice(0, 100)
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(size), 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' })
      if (req.method === 'HEAD') res.end()
      else createReadStream(file!).pipe(res)
      return true
    }
    json(res, 404, { error: 'No such data route.' })
    return true
  }
}

const FOLDER_FULL = TRANSFERS_FULL

function upload(req: IncomingMessage, res: ServerResponse, dataDir: string, limits: TransferLimits): void {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limits.maxUploadBytes) {
    json(res, 413, { error: TOO_LARGE })
    req.resume()
    return
  }
  const room = limits.maxTotalBytes - transfersSize(dataDir)
  if (declared > room) {
    json(res, 507, { error: FOLDER_FULL })
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
    if (received > limits.maxUploadBytes) fail(413, TOO_LARGE)
    else if (received > room) fail(507, FOLDER_FULL)
  })
  req.on('aborted', () => fail(400, 'The upload was interrupted.'))
  out.on('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOSPC' ? 507 : 500, error.code === 'ENOSPC' ? 'The disk is full; free some space and try again.' : 'The upload could not be saved.'))
  out.on('finish', () => {
    if (!failed) json(res, 200, { transferId: id, bytes: received })
  })
  req.pipe(out)
}
