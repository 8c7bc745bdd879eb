import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Vitest global setup: every temporary folder the tests make (data folders of devices, stores,
// servers' files — about 2 GB and 800 folders a run) goes into one folder of this run, removed when
// the run ends. Workers inherit TMPDIR, and so do the processes they start. The folder is
// readable by others: the PostgreSQL cluster runs as its own user and must reach its own folder
// inside it.
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-vitest-'))
  chmodSync(root, 0o755)
  process.env['TMPDIR'] = root
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}
