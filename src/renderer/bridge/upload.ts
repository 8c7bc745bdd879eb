import type { Contract } from '../../shared/bridge/contract'
import type { BridgeClient } from '../../shared/bridge/client'

/** One piece per IPC message: large enough to be quick, small enough never to hold a big file whole. */
export const UPLOAD_PIECE_BYTES = 4 * 1024 * 1024

/**
 * The one way a picked file reaches the core: as a transfer file in the data folder, named by its
 * id in the procedure that reads it (`knowledge.upload`, `data.importFile`). Browser mode streams
 * it with one HTTP POST (a WebSocket frame stops at 64 MB); the desktop sends it in pieces of
 * bytes over IPC (no base64, never the whole file in one message). `onProgress` gets bytes sent.
 */
export async function uploadFile(
  client: BridgeClient<Contract>,
  file: Blob,
  mode: string | undefined,
  onProgress?: (sent: number, total: number) => void
): Promise<string> {
  if (mode === 'browser') {
    const response = await fetch('data/upload', { method: 'POST', body: file })
    const body = (await response.json().catch(() => ({}))) as { transferId?: string; error?: string }
    if (!body.transferId) throw new Error(body.error ?? response.statusText)
    onProgress?.(file.size, file.size)
    return body.transferId
  }
  const created = await client.call('files.transferCreate', {})
  if (!created.ok) throw new Error(created.error.message)
  const { transferId } = created.value
  let offset = 0
  do {
    const chunk = new Uint8Array(await file.slice(offset, offset + UPLOAD_PIECE_BYTES).arrayBuffer())
    const appended = await client.call('files.transferAppend', { transferId, chunk })
    if (!appended.ok) throw new Error(appended.error.message)
    onProgress?.(appended.value.bytes, file.size)
    offset += UPLOAD_PIECE_BYTES
  } while (offset < file.size)
  return transferId
}
