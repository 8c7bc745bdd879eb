import { describe, expect, it } from 'vitest'
import { runChatStream, type ChunkTransformer } from '../../../src/core/runtime/stream/run-chat-stream'
import { ModelCaller, type UsageEntry } from '../../../src/core/caller/model-caller'
import type { ProviderRuntime } from '../../../src/core/runtime/types'
import type { StreamEvent } from '../../../src/shared/stream/events'

/** Chunks are strings: 'bad' does not parse, 'end' is the finish, anything else is text. */
const transformer = (): ChunkTransformer<string> & { finished: boolean } => ({
  finished: false,
  transform(chunk, emit) {
    if (chunk === 'bad') throw new Error('cannot read it')
    if (chunk === 'end') {
      this.finished = true
      emit({ type: 'stop', data: 'stop' })
      emit({ type: 'stop', data: 'stop' })
    } else emit({ type: 'text', data: chunk })
  }
})

/** A source whose reads hold several chunks each, handed out one by one or all at once (`ready`). */
function source(reads: string[][]) {
  const queue: string[] = []
  let read = 0
  const iterator = {
    [Symbol.asyncIterator]: () => iterator,
    async next(): Promise<IteratorResult<string>> {
      if (queue.length === 0 && read < reads.length) queue.push(...reads[read++]!)
      return queue.length ? { done: false, value: queue.shift()! } : { done: true, value: undefined }
    },
    ready: () => queue.splice(0)
  }
  return iterator
}

const stream = (reads: string[][]) => {
  const t = transformer()
  return runChatStream<string>({ provider: 'fake', transformer: t, mapError: (e) => ({ errorType: 'ProviderBizError', message: String(e) }), sawEndMarker: () => t.finished, open: async () => source(reads) })
}

const shape = (events: StreamEvent[]) => events.filter((e) => e.type !== 'speed').map((e) => (e.type === 'error' ? `error:${e.data.errorType}` : `${e.type}:${String(e.data)}`))

async function batches(reads: string[][]) {
  const s = stream(reads)
  const out: string[][] = []
  for (let next = await s.nextBatch(); !next.done; next = await s.nextBatch()) out.push(shape(next.value))
  return out.filter((b) => b.length)
}

async function oneByOne(reads: string[][]) {
  const out: StreamEvent[] = []
  for await (const event of stream(reads)) out.push(event)
  return shape(out)
}

describe('event batches', () => {
  it('a network read is one batch; event by event gives the same events in the same order', async () => {
    const reads = [['a', 'b', 'c'], ['d'], ['e', 'end']]
    expect(await batches(reads)).toEqual([['text:a', 'text:b', 'text:c'], ['text:d'], ['text:e', 'stop:stop']])
    expect(await oneByOne(reads)).toEqual(['text:a', 'text:b', 'text:c', 'text:d', 'text:e', 'stop:stop'])
  })

  it('a chunk that does not parse in the middle of a read: the events before it, then the error', async () => {
    const reads = [['a', 'b', 'bad', 'c']]
    expect((await batches(reads)).flat()).toEqual(['text:a', 'text:b', 'error:StreamChunkError', 'stop:error'])
    expect(await oneByOne(reads)).toEqual(['text:a', 'text:b', 'error:StreamChunkError', 'stop:error'])
  })

  it('next and nextBatch mixed on one stream lose and repeat nothing', async () => {
    const s = stream([['a', 'b', 'c'], ['d', 'end']])
    const out: string[] = []
    out.push(...shape([(await s.next()).value as StreamEvent]))
    const rest = await s.nextBatch()
    out.push(...shape(rest.done ? [] : rest.value))
    for await (const event of s) out.push(...shape([event]))
    expect(out).toEqual(['text:a', 'text:b', 'text:c', 'text:d', 'stop:stop'])
  })

  it('the model caller passes batches on, each event counted: the estimate of a stopped call is the same', async () => {
    const runtime: ProviderRuntime = { id: 'fake', chat: () => stream([['hello ', 'world ', 'again'], ['and more']]) }
    const logged: UsageEntry[] = []
    const caller = new ModelCaller({ runtimeFor: async () => runtime, price: async () => undefined, logUsage: (entry) => logged.push(entry) })
    const run = caller.run({ target: { providerId: 'fake', modelId: 'm' }, scene: 'Local API', messages: [{ role: 'user', content: 'go' }], estimateUsage: true }) as ReturnType<ModelCaller['run']> & { nextBatch(): Promise<IteratorResult<StreamEvent[]>> }
    const first = await run.nextBatch()
    expect(first.done ? [] : shape(first.value)).toEqual(['text:hello '])
    const second = await run.nextBatch()
    expect(second.done ? [] : shape(second.value)).toEqual(['text:world ', 'text:again'])
    await run.return()
    const byEvents = new ModelCaller({ runtimeFor: async () => runtime, price: async () => undefined, logUsage: (entry) => logged.push(entry) })
    const other = byEvents.run({ target: { providerId: 'fake', modelId: 'm' }, scene: 'Local API', messages: [{ role: 'user', content: 'go' }], estimateUsage: true })
    for (let i = 0; i < 3; i++) await other.next()
    await other.return()
    expect(logged).toHaveLength(2)
    expect(logged[0]!.usage).toEqual(logged[1]!.usage)
    expect(logged[0]!.usage?.totalOutputTokens).toBeGreaterThan(0)
  })
})
