import type { ChatDone, ChatParams, EmbedResult, EngineChunk, EngineErrorData, EngineReply, EngineRequest, EngineStatus, LoadedModelStatus, LoadParams } from './protocol'
import type { EngineProcess, EngineSpawner } from './engine-process'

/** The engine answered a request with an error (the model did not load, no such model…). */
export class EngineError extends Error {
  constructor(readonly code: EngineErrorData['code'] | 'crashed', message: string) {
    super(message)
    this.name = 'EngineError'
  }
}

/** The engine process ended while requests were open: what was written so far stays with the caller. */
export class EngineCrashedError extends EngineError {
  constructor(readonly exit: { code: number | null; signal: string | null }) {
    super(
      'crashed',
      `The built-in engine stopped unexpectedly (${exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`}${exit.signal === 'SIGKILL' ? ', possibly out of memory' : ''}). It starts again with the next request.`
    )
    this.name = 'EngineCrashedError'
  }
}

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
  onChunk?: (chunk: EngineChunk) => void
}

export type ChatStreamItem = { type: 'chunk'; chunk: EngineChunk } | { type: 'done'; data: ChatDone }

/**
 * The core's end of the engine: starts the host process when a request needs it, matches replies
 * to requests, and turns the process ending into an error on every open request (so a crash ends
 * a reply as interrupted instead of hanging it). The next request starts a new process.
 */
export class EngineClient {
  private proc: EngineProcess | undefined
  private ready: Promise<EngineProcess> | undefined
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private readonly exitListeners = new Set<(error: EngineCrashedError | undefined) => void>()
  private stopping = false
  /** While a stop the core asked for is under way: requests wait for it, then start a new process. */
  private stopped: Promise<void> | undefined
  /** How many times the process has started (tests and the status page read it). */
  starts = 0

  constructor(private readonly spawner: EngineSpawner) {}

  get running(): boolean {
    return this.proc !== undefined
  }

  get pid(): number | undefined {
    return this.proc?.pid
  }

  get spawnKind(): string {
    return this.spawner.kind
  }

  /** Called when the process ends: with the crash, or undefined for a stop the core asked for. */
  onExit(listener: (error: EngineCrashedError | undefined) => void): () => void {
    this.exitListeners.add(listener)
    return () => this.exitListeners.delete(listener)
  }

  private start(): Promise<EngineProcess> {
    if (this.ready) return this.ready
    this.ready = new Promise<EngineProcess>((resolve, reject) => {
      const proc = this.spawner.spawn()
      this.starts++
      this.proc = proc
      let up = false
      proc.onMessage((message) => {
        if (message.type === 'ready') {
          up = true
          this.busy()
          resolve(proc)
          return
        }
        this.dispatch(message)
      })
      proc.onExit((exit) => {
        if (this.proc !== proc) return
        this.proc = undefined
        this.ready = undefined
        const expected = this.stopping
        this.stopping = false
        const error = expected ? undefined : new EngineCrashedError(exit)
        const failure = error ?? new EngineError('crashed', 'The built-in engine was stopped.')
        if (!up) reject(failure)
        for (const [id, p] of this.pending) {
          this.pending.delete(id)
          p.reject(failure)
        }
        for (const l of this.exitListeners) l(error)
      })
    })
    return this.ready
  }

  /**
   * The process to send to. A request made while a stop is under way (a load just as the
   * keep-alive ran out and the engine was being stopped) goes to the next process, never to the
   * one being stopped.
   */
  private async live(): Promise<EngineProcess> {
    for (;;) {
      while (this.stopped) await this.stopped
      const proc = await this.start()
      if (!this.stopped) return proc
    }
  }

  private busy(): void {
    this.proc?.setBusy?.(this.pending.size > 0)
  }

  private dispatch(message: EngineReply): void {
    try {
      this.route(message)
    } finally {
      this.busy()
    }
  }

  private route(message: EngineReply): void {
    const p = this.pending.get(message.id)
    if (!p) return
    switch (message.type) {
      case 'chunk':
        p.onChunk?.(message.chunk)
        return
      case 'result':
      case 'done':
        this.pending.delete(message.id)
        p.resolve(message.data)
        return
      case 'error':
        this.pending.delete(message.id)
        p.reject(new EngineError(message.error.code, message.error.message))
        return
    }
  }

  private async request<T>(build: (id: number) => EngineRequest, onChunk?: (chunk: EngineChunk) => void): Promise<T> {
    const proc = await this.live()
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(onChunk ? { onChunk } : {}) })
      this.busy()
      proc.send(build(id))
    })
  }

  load(params: LoadParams): Promise<LoadedModelStatus> {
    return this.request((id) => ({ id, type: 'load', params }))
  }

  async unload(modelId: string): Promise<void> {
    if (!this.proc) return
    await this.request((id) => ({ id, type: 'unload', params: { modelId } }))
  }

  embed(modelId: string, inputs: Array<string | number[]>): Promise<EmbedResult> {
    return this.request((id) => ({ id, type: 'embed', params: { modelId, inputs } }))
  }

  async status(): Promise<EngineStatus | undefined> {
    if (!this.proc) return undefined
    return this.request((id) => ({ id, type: 'status' }))
  }

  /**
   * A chat as a stream of chunks ending with `done`. Aborting the signal tells the engine to stop
   * at once; the engine still answers `done` with what it generated (stop reason `abort`).
   * A crash of the engine throws EngineCrashedError from the iterator after the chunks so far.
   */
  async *chat(params: ChatParams, signal?: AbortSignal): AsyncGenerator<ChatStreamItem> {
    const proc = await this.live()
    const id = this.nextId++
    const queue: ChatStreamItem[] = []
    let wake: (() => void) | undefined
    let failure: Error | undefined
    let finished = false
    const notify = (): void => {
      wake?.()
      wake = undefined
    }
    this.pending.set(id, {
      onChunk: (chunk) => {
        queue.push({ type: 'chunk', chunk })
        notify()
      },
      resolve: (data) => {
        queue.push({ type: 'done', data: data as ChatDone })
        finished = true
        notify()
      },
      reject: (error) => {
        failure = error
        finished = true
        notify()
      }
    })
    const onAbort = (): void => {
      if (!finished && this.proc === proc) proc.send({ id: this.nextId++, type: 'abort', target: id })
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    this.busy()
    proc.send({ id, type: 'chat', params })
    if (signal?.aborted) onAbort()
    try {
      for (;;) {
        while (queue.length) yield queue.shift()!
        if (finished) {
          while (queue.length) yield queue.shift()!
          if (failure) throw failure
          return
        }
        await new Promise<void>((resolve) => (wake = resolve))
      }
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // A consumer that stops reading mid-reply must not leave the engine generating.
      if (!finished) onAbort()
    }
  }

  /** Ends the process (all models leave memory). */
  async stop(): Promise<void> {
    const proc = this.proc
    if (!proc) return
    if (this.stopped) return this.stopped
    this.stopping = true
    // Held until it has gone, or a short-lived process (the CLI) would end while waiting for it.
    proc.setBusy?.(true)
    this.stopped = new Promise<void>((resolve) => {
      proc.onExit(() => resolve())
      proc.kill()
    }).finally(() => (this.stopped = undefined))
    return this.stopped
  }
}
