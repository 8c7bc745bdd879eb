// Draws build/icon.png (1024×1024): a rounded square with three switch bars. Kept as code so
// the icon has a source; electron-builder derives .icns and .ico from the PNG.
import { writeFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'

const size = 1024
const px = Buffer.alloc(size * size * 4)
const inRounded = (x, y, x0, y0, x1, y1, r) => {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false
  const cx = Math.min(Math.max(x, x0 + r), x1 - r)
  const cy = Math.min(Math.max(y, y0 + r), y1 - r)
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
}
for (let y = 0; y < size; y++) {
  for (let x = 0; x < size; x++) {
    const i = (y * size + x) * 4
    if (!inRounded(x, y, 64, 64, 960, 960, 200)) continue
    const t = (x + y) / (2 * size)
    px.set([Math.round(79 - 30 * t), Math.round(107 - 40 * t), 255, 255], i)
    const bars = [
      [250, 340, 620],
      [470, 560, 420],
      [690, 780, 720]
    ]
    for (const [y0, y1, knob] of bars) {
      if (inRounded(x, y, 220, y0, 804, y1, 45)) px.set([255, 255, 255, 235], i)
      if ((x - knob) ** 2 + (y - (y0 + y1) / 2) ** 2 <= 70 ** 2) px.set([20, 24, 40, 255], i)
    }
  }
}
const raw = Buffer.alloc((size * 4 + 1) * size)
for (let y = 0; y < size; y++) px.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4)
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc = (buf) => {
  let c = 0xffffffff
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (type, data) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type), data])
  const c = Buffer.alloc(4)
  c.writeUInt32BE(crc(td))
  return Buffer.concat([len, td, c])
}
const ihdr = Buffer.alloc(13)
ihdr.writeUInt32BE(size, 0)
ihdr.writeUInt32BE(size, 4)
ihdr.set([8, 6, 0, 0, 0], 8)
const png = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))])
writeFileSync(new URL('../build/icon.png', import.meta.url), png)
writeFileSync(new URL('../resources/icon.png', import.meta.url), png)
console.log(`build/icon.png ${png.length} bytes`)
