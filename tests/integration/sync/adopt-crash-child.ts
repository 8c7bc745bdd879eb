// Child process of the adoption crash test: a fresh device that sets up sync from a folder store
// and is killed (SIGKILL, by itself) in the middle of adopting the snapshot's image: the rows are
// copied, some of their pages already written to the database file, the transaction not committed.
import { writeSync } from 'node:fs'
import { openDevice } from './devices'

const [dataDir, folder] = [process.argv[2]!, process.argv[3]!]
const device = await openDevice('B', { dataDir })
const sqlite = device.core.services().store.db.sqlite
// A small page cache, so the copied rows spill into the database file before the commit (as a
// history larger than the cache does); the rollback journal then holds what they overwrote.
sqlite.pragma('cache_size = 16')
const prepare = sqlite.prepare.bind(sqlite)
sqlite.prepare = ((source: string) => {
  // Adoption's next step after the rows: their stamps. The process dies here, mid-transaction.
  if (/^insert into "sync_meta"/i.test(source) && /"sync_image"\."meta"/.test(source)) {
    writeSync(1, `adopting ${(prepare('SELECT COUNT(*) AS n FROM main.messages').get() as { n: number }).n}\n`)
    process.kill(process.pid, 'SIGKILL')
    // Nothing else runs until the signal lands.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
  }
  return prepare(source)
}) as typeof sqlite.prepare
await device.setup({ kind: 'folder', path: folder })
await device.sync()
writeSync(1, 'finished without adopting\n')
process.exit(1)
