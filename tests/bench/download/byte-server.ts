import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// A file server in its own process (so its CPU is not counted): serves `--bytes` bytes made of
// one repeated 1 MiB seeded block at /file, with Range (206) like a CDN. Prints {"url"} on start.
const args = process.argv.slice(2)
const size = Number(args[args.indexOf('--bytes') + 1])
const BLOCK = 1024 * 1024
const block = Buffer.alloc(BLOCK)
let x = 12345
for (let i = 0; i < BLOCK; i += 4) {
  x ^= x << 13
  x ^= x >>> 17
  x ^= x << 5
  block.writeUInt32LE(x >>> 0, i)
}

const server = createServer((req, res) => {
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
  const start = m ? Number(m[1]) : 0
  res.writeHead(m ? 206 : 200, {
    'Content-Length': size - start,
    'Accept-Ranges': 'bytes',
    ...(m ? { 'Content-Range': `bytes ${start}-${size - 1}/${size}` } : {})
  })
  let pos = start
  const pump = () => {
    while (pos < size) {
      const offset = pos % BLOCK
      const n = Math.min(BLOCK - offset, size - pos)
      pos += n
      if (!res.write(block.subarray(offset, offset + n))) return void res.once('drain', pump)
    }
    res.end()
  }
  pump()
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`, block: block.toString('base64').length })}\n`))
