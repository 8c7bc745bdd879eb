// The S3 test server (s3rver, tests/support/sync-servers.ts) in a process of its own, for the sync
// bench: served from the measured process, its request handling shared that process's one thread
// with the sync it was serving (a first sync's decryption and SQLite work held its downloads up,
// where raw transfers kept the thread free), unlike any real S3. Prints the server's address as
// one JSON line; stops when its standard input closes.
import { startS3Server } from './sync-servers'

const s3 = await startS3Server()
process.stdout.write(`${JSON.stringify({ endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey })}\n`)
process.stdin.resume()
process.stdin.on('end', () => void s3.stop().finally(() => process.exit(0)))
