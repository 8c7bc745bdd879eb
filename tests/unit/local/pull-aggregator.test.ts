import { describe, expect, it } from 'vitest'
import { PullAggregator } from '../../../src/core/local/pull-aggregator'
import { TransferRate } from '../../../src/core/progress/transfer-rate'

const layer = (digest: string, total: number, completed?: number) => ({
  status: `pulling ${digest.slice(0, 12)}`,
  model: 'm',
  digest,
  total,
  ...(completed !== undefined ? { completed } : {})
})

describe('PullAggregator', () => {
  it('sums bytes over all layers and ends exact on success', () => {
    const agg = new PullAggregator()
    agg.apply(layer('aaa', 1000))
    agg.apply(layer('aaa', 1000, 400))
    agg.apply(layer('bbb', 50))
    agg.apply(layer('bbb', 50, 20))
    expect(agg.completedBytes).toBe(420)
    expect(agg.totalBytes).toBe(1050)
    expect(agg.phase).toBe('downloading')
    agg.apply({ status: 'verifying sha256 digest', model: 'm' })
    expect(agg.phase).toBe('verifying')
    agg.apply({ status: 'success', model: 'm' })
    expect(agg.completedBytes).toBe(1050)
    expect(agg.fraction()).toBe(1)
    expect(agg.layerDetail().every((l) => l.done)).toBe(true)
  })

  it('never goes backwards: a retried part reporting fewer bytes, or a new layer raising the total', () => {
    const agg = new PullAggregator()
    agg.apply(layer('aaa', 1000, 900))
    const f1 = agg.fraction()
    agg.apply(layer('aaa', 1000, 600))
    expect(agg.completedBytes).toBe(900)
    agg.apply(layer('bbb', 1000))
    expect(agg.totalBytes).toBe(2000)
    expect(agg.fraction()).toBeGreaterThanOrEqual(f1)
    agg.apply(layer('bbb', 1000, 10))
    expect(agg.fraction()).toBeGreaterThanOrEqual(f1)
  })

  it('detects a resumed layer from its first report and counts the bytes that were already there', () => {
    const agg = new PullAggregator()
    agg.apply(layer('aaa', 1000, 300))
    agg.apply(layer('aaa', 1000, 500))
    agg.apply(layer('bbb', 80, 80))
    expect(agg.resumedBytes).toBe(380)
    expect(agg.partialFound).toBe(true)
    const fresh = new PullAggregator()
    fresh.apply(layer('ccc', 80, 80)) // a layer shared with an installed model: whole, not a resume
    expect(fresh.partialFound).toBe(false)
  })

  it('a seeded aggregate (a resume) opens at the earlier bytes, downloading, and still counts what the server had', () => {
    const agg = new PullAggregator()
    agg.seed([
      { digest: 'aaa', completedBytes: 400, totalBytes: 1000, resumedBytes: 0, done: false },
      { digest: 'bbb', completedBytes: 50, totalBytes: 50, resumedBytes: 0, done: true }
    ])
    expect(agg.phase).toBe('downloading')
    expect(agg.completedBytes).toBe(450)
    expect(agg.fraction()).toBeCloseTo(450 / 1050)
    agg.apply({ status: 'pulling manifest', model: 'm' })
    expect(agg.fraction()).toBeCloseTo(450 / 1050)
    agg.apply(layer('aaa', 1000, 400))
    agg.apply(layer('aaa', 1000, 700))
    expect(agg.completedBytes).toBe(750)
    expect(agg.totalBytes).toBe(1050)
    expect(agg.resumedBytes).toBe(400)
  })

  it('ends in cancelled or error from the raw endings', () => {
    const a = new PullAggregator()
    a.apply({ status: 'cancelled' })
    expect(a.phase).toBe('cancelled')
    const b = new PullAggregator()
    b.apply({ status: 'error', model: 'm', error: 'boom' })
    expect(b.phase).toBe('error')
    expect(b.errorMessage).toBe('boom')
  })
})

describe('TransferRate', () => {
  it('measures bytes per second over its window', () => {
    const rate = new TransferRate(1000)
    rate.add(0, 0)
    expect(rate.rate()).toBe(0)
    rate.add(500, 500)
    expect(rate.rate()).toBe(1000)
    rate.add(3000, 500) // stalled: the window slides past the burst
    rate.add(3500, 500)
    expect(rate.rate()).toBe(0)
  })
})
