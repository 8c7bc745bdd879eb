import type { PullLayerProgress, PullPhase, RawPullEvent } from '../../shared/local/pull-progress'

interface LayerState {
  digest: string
  completed: number
  total: number
  resumed: number
  seen: boolean
}

/**
 * Folds raw pull events into one aggregate over all layers. Ollama reports each layer on
 * its own and a retried part can report fewer bytes than before; the aggregate only moves
 * forward: per-layer bytes are the maximum seen, and the fraction never drops even when a
 * newly announced layer raises the total. Cheap per event (a map lookup and two
 * additions) because a fast pull sends tens of thousands of lines.
 */
export class PullAggregator {
  private readonly layers = new Map<string, LayerState>()
  completedBytes = 0
  totalBytes = 0
  phase: PullPhase = 'starting'
  status = ''
  errorMessage?: string
  /** Bytes the server already had when this pull reached each layer. */
  resumedBytes = 0
  /** A layer was found partly downloaded: the server resumed an interrupted pull. */
  partialFound = false
  private fractionFloor = 0

  /**
   * Starts from what an earlier attempt of the same pull reached (a resume after cancel):
   * the bar opens where it stopped instead of at 0 % "Starting…". The layers stay unseen, so
   * the server's first report of each still counts as bytes that were already there.
   */
  seed(layers: readonly PullLayerProgress[]): void {
    for (const l of layers) {
      if (this.layers.has(l.digest)) continue
      this.layers.set(l.digest, { digest: l.digest, completed: l.completedBytes, total: l.totalBytes, resumed: 0, seen: false })
      this.completedBytes += l.completedBytes
      this.totalBytes += l.totalBytes
    }
    if (this.completedBytes > 0) this.phase = 'downloading'
  }

  apply(event: RawPullEvent): void {
    if (event.status === 'cancelled' && !('model' in event)) {
      this.phase = 'cancelled'
      this.status = 'cancelled'
      return
    }
    if (event.status === 'error' && 'error' in event) {
      this.phase = 'error'
      this.status = 'error'
      this.errorMessage = event.error
      return
    }
    const e = event as { status: string; completed?: number; total?: number; digest?: string }
    this.status = e.status
    switch (e.status) {
      case 'success':
        this.finishLayers()
        this.phase = 'success'
        return
      case 'verifying sha256 digest':
        this.phase = 'verifying'
        break
      case 'writing manifest':
      case 'removing any unused layers':
      case 'removing unused layers':
        this.phase = 'writing'
        break
      default:
        if (this.phase === 'starting' || e.completed !== undefined || e.total !== undefined) this.phase = 'downloading'
    }
    if (e.completed === undefined && e.total === undefined) return
    const key = e.digest ?? ''
    let layer = this.layers.get(key)
    if (!layer) {
      layer = { digest: key, completed: 0, total: 0, resumed: 0, seen: false }
      this.layers.set(key, layer)
    }
    if (e.total !== undefined && e.total !== layer.total) {
      this.totalBytes += e.total - layer.total
      layer.total = e.total
    }
    if (e.completed !== undefined) {
      if (!layer.seen && e.completed > 0) {
        // The first report of a layer already shows bytes: they were on disk before this pull.
        layer.resumed = e.completed
        this.resumedBytes += e.completed
        if (layer.total > 0 && e.completed < layer.total) this.partialFound = true
      }
      if (e.completed > layer.completed) {
        this.completedBytes += e.completed - layer.completed
        layer.completed = e.completed
      }
    }
    layer.seen = true
  }

  /** On success every layer is whole, whatever the last progress line said. */
  private finishLayers(): void {
    for (const layer of this.layers.values()) {
      if (layer.completed < layer.total) {
        this.completedBytes += layer.total - layer.completed
        layer.completed = layer.total
      }
    }
  }

  /** 0..1, never lower than a value returned before; exactly 1 after success. */
  fraction(): number {
    if (this.phase === 'success') return 1
    const now = this.totalBytes > 0 ? Math.min(1, this.completedBytes / this.totalBytes) : 0
    if (now > this.fractionFloor) this.fractionFloor = now
    return this.fractionFloor
  }

  layerDetail(): PullLayerProgress[] {
    return [...this.layers.values()]
      .filter((l) => l.digest !== '' || this.layers.size === 1)
      .map((l) => ({
        digest: l.digest,
        completedBytes: l.completed,
        totalBytes: l.total,
        resumedBytes: l.resumed,
        done: l.total > 0 && l.completed >= l.total
      }))
  }
}
