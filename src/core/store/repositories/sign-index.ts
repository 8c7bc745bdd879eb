/**
 * The k-NN candidate scan of a knowledge base in memory (performance): each published
 * chunk's sign bits, packed into 32-bit words, scanned by Hamming distance. It holds the same bits
 * as the base's vec0 table (32× smaller than its float vectors: 9.6 MB for 100,000 × 768) and
 * replaces sqlite-vec's brute-force scan, whose cost grows with both the base and k. Built from
 * vec0 on the first search after a change; any write to vec0 drops it.
 */
export class SignIndex {
  private constructor(
    private readonly ids: Float64Array,
    private readonly words: Uint32Array,
    private readonly perVector: number
  ) {}

  get size(): number {
    return this.ids.length
  }

  /** From `(rowid, bits)` rows as vec0 returns them (the bits as a blob of dims/8 bytes). */
  static build(rows: readonly { id: number | bigint; bits: Uint8Array }[], bytes: number): SignIndex {
    const perVector = Math.ceil(bytes / 4)
    const ids = new Float64Array(rows.length)
    const words = new Uint32Array(rows.length * perVector)
    const view = new Uint8Array(words.buffer)
    rows.forEach((row, i) => {
      ids[i] = Number(row.id)
      view.set(row.bits.subarray(0, bytes), i * perVector * 4)
    })
    return new SignIndex(ids, words, perVector)
  }

  /** The ids of the `k` vectors nearest to `query` (sign bits, same packing) by Hamming distance. */
  nearest(query: Uint8Array, k: number): number[] {
    const n = this.ids.length
    if (n === 0 || k <= 0) return []
    const q = new Uint32Array(this.perVector)
    new Uint8Array(q.buffer).set(query.subarray(0, this.perVector * 4))
    const distances = new Uint16Array(n)
    const histogram = new Uint32Array(this.perVector * 32 + 1)
    const words = this.words
    const per = this.perVector
    for (let i = 0, base = 0; i < n; i++, base += per) {
      let d = 0
      for (let w = 0; w < per; w++) {
        // Population count of the differing bits (SWAR: no 64-bit popcount in JavaScript).
        let x = (words[base + w]! ^ q[w]!) >>> 0
        x -= (x >>> 1) & 0x55555555
        x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
        d += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
      }
      distances[i] = d
      histogram[d]!++
    }
    // The distance below which at least k vectors lie (a counting pass, no sort of n).
    let threshold = 0
    for (let seen = 0; threshold < histogram.length; threshold++) {
      seen += histogram[threshold]!
      if (seen >= k) break
    }
    const picked: { id: number; d: number }[] = []
    for (let i = 0; i < n; i++) if (distances[i]! <= threshold) picked.push({ id: this.ids[i]!, d: distances[i]! })
    return picked
      .sort((a, b) => a.d - b.d || a.id - b.id)
      .slice(0, k)
      .map((p) => p.id)
  }
}
