import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isUnavailable } from '../../src/core/services-access'
import { MemoryBackend } from '../../src/core/secrets'
import type { ChatStreamEvent } from '../../src/shared/bridge/procedures/chat'
import type { Message } from '../../src/shared/data/message'
import type { Result } from '../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../fixtures/gguf/tiny-llama'
import { median } from './util'
import { readyTestCore } from '../integration/test-core'

/**
 * The built-in engine (issue 31's goals), on the tiny test model, same prompt, threads (1) and
 * context (2,048) both ways, in the same run:
 *  - tokens/s of a reply through the whole app (runtime → engine process → bridge → store)
 *    against node-llama-cpp called directly in this process: goal ≥ 0.9×;
 *  - time to first token added by the app (IPC, bridge, store): goal ≤ 20 ms;
 *  - the core process's memory when a model loads: flat (the model lives in the engine process);
 *  - two requests at once through the engine's two slots against node-llama-cpp with a
 *    two-sequence context, both replies' tokens/s together: goal ≥ 0.9×.
 * The app is measured first, so the direct run's model is not yet in this process.
 */
const TOKENS = 1500
const RUNS = 9
const PROMPT = 'Hello there'
const MB = 1024 * 1024


export default async function engineBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-engine-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  const modelPath = join(dataDir, 'models', 'tiny.gguf')
  writeTinyLlamaGguf(modelPath)
  try {
    // ---- through the app
    const { core, client } = await readyTestCore('sb-bench-engine-', { dataDir, secrets: { backend: new MemoryBackend() } })
    const sidebar = await client.call('chat.sidebar', {})
    if (!sidebar.ok) throw new Error(sidebar.error.message)
    await client.call('data.agents.update', { id: sidebar.value.defaultAgentId, patch: { providerId: 'builtin', modelId: 'tiny', systemPrompt: '', parameters: { maxOutputTokens: TOKENS, temperature: 0 } } })
    const appRun = async () => {
      const started = performance.now()
      let first: number | undefined
      let last = 0
      let replyAt: number | undefined
      const result = await new Promise<Result<Message>>((resolve) => {
        client.stream('chat.send', { text: PROMPT } as never, {
          onEvent: (e: ChatStreamEvent) => {
            if (e.type === 'reply') replyAt ??= performance.now()
            if (e.type !== 'text') return
            last = performance.now()
            first ??= last
          },
          onEnd: resolve
        })
      })
      if (!result.ok) throw new Error(`${result.error.errorType}: ${result.error.message}`)
      const tokens = result.value.usage?.totalOutputTokens ?? 0
      if (tokens !== TOKENS || first === undefined) throw new Error(`app reply had ${tokens} tokens`)
      return { ttft: first - started, tps: TOKENS / (Math.max(last - first, 0.001) / 1000), replyEvent: (replyAt ?? first) - started }
    }
    // The app's own time to first token, whatever the provider: a runtime that answers at once
    // (registered over openai's for this measurement only).
    const { registerProvider, unregisterProvider } = await import('../../src/core/runtime/registry')
    registerProvider('openai', (_c, ctx) => ({
      id: ctx.providerId,
      async *chat() {
        yield { type: 'text', data: 'x' }
        yield { type: 'usage', data: { totalOutputTokens: TOKENS } }
        yield { type: 'stop', data: 'length' }
      }
    }))
    await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-bench-0000000000000000' })
    await client.call('data.agents.update', { id: sidebar.value.defaultAgentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini' } })
    const nullTtft: number[] = []
    for (let i = 0; i < RUNS + 1; i++) nullTtft.push((await appRun()).ttft)
    unregisterProvider('openai')
    await client.call('data.agents.update', { id: sidebar.value.defaultAgentId, patch: { providerId: 'builtin', modelId: 'tiny' } })
    // Measured after the chat path is warm, so the difference is what loading a model costs the core.
    global.gc?.()
    const rssBefore = process.memoryUsage().rss
    await appRun() // loads the model (and warms the engine)
    global.gc?.()
    const rssLoaded = process.memoryUsage().rss
    const engine = core.services().engine
    if (isUnavailable(engine)) throw new Error(engine.reason)
    const ps = await engine.ps()
    // The engine path alone (runtime → engine process), without the chat service, bridge and store.
    const runtime = await core.services().providers.runtime('builtin')
    const runtimeRun = async () => {
      const started = performance.now()
      let first: number | undefined
      let last = 0
      let tokens = 0
      for await (const e of runtime.chat!({ model: 'tiny', messages: [{ role: 'user', content: PROMPT }], max_tokens: TOKENS, temperature: 0 })) {
        if (e.type === 'text') {
          last = performance.now()
          first ??= last
        }
        if (e.type === 'usage') tokens = e.data.totalOutputTokens ?? 0
      }
      if (first === undefined || tokens !== TOKENS) throw new Error(`runtime reply had ${tokens} tokens`)
      return { ttft: first - started, tps: TOKENS / ((last - first) / 1000) }
    }
    await runtimeRun()

    // ---- node-llama-cpp directly, same model, prompt, threads and context
    const { getLlama, LlamaChat, resolveChatWrapper } = await import('node-llama-cpp')
    const llama = await getLlama({ gpu: false, build: 'never' })
    const model = await llama.loadModel({ modelPath })
    const context = await model.createContext({ contextSize: 2048, threads: 1, sequences: 1 })
    const sequence = context.getSequence()
    // Resolved once, as LlamaChatSession does (each LlamaChat would otherwise render the template again).
    const chatWrapper = resolveChatWrapper(model)!
    const directRun = async () => {
      const started = performance.now()
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false })
      let first: number | undefined
      let last = 0
      let tokens = 0
      await chat.generateResponse(
        [
          { type: 'user', text: PROMPT },
          { type: 'model', response: [] }
        ],
        {
          maxTokens: TOKENS,
          temperature: 0,
          onToken: (t) => {
            tokens += t.length
          },
          onTextChunk: () => {
            last = performance.now()
            first ??= last
          }
        }
      )
      chat.dispose({ disposeSequence: false })
      if (first === undefined || tokens !== TOKENS) throw new Error(`direct run wrote ${tokens} tokens`)
      return { ttft: first - started, tps: TOKENS / ((last - first) / 1000) }
    }
    await directRun()
    // Interleaved, so the three ways share whatever else the machine is doing.
    const app: Array<{ ttft: number; tps: number; replyEvent: number }> = []
    const viaRuntime: Array<{ ttft: number; tps: number }> = []
    const direct: Array<{ ttft: number; tps: number }> = []
    for (let i = 0; i < RUNS; i++) {
      app.push(await appRun())
      viaRuntime.push(await runtimeRun())
      direct.push(await directRun())
    }
    // ---- two requests at once: the engine's two slots against node-llama-cpp with a two-sequence context
    const runtimeSpan = async () => {
      let first: number | undefined
      let last = 0
      for await (const e of runtime.chat!({ model: 'tiny', messages: [{ role: 'user', content: PROMPT }], max_tokens: TOKENS, temperature: 0 })) {
        if (e.type !== 'text') continue
        last = performance.now()
        first ??= last
      }
      return { first: first ?? last, last }
    }
    const context2 = await model.createContext({ contextSize: 2048, threads: 1, sequences: 2 })
    const sequences = [context2.getSequence(), context2.getSequence()]
    const directSpan = async (i: number) => {
      const chat = new LlamaChat({ contextSequence: sequences[i]!, chatWrapper, autoDisposeSequence: false })
      let first: number | undefined
      let last = 0
      await chat.generateResponse(
        [
          { type: 'user', text: PROMPT },
          { type: 'model', response: [] }
        ],
        {
          maxTokens: TOKENS,
          temperature: 0,
          onTextChunk: () => {
            last = performance.now()
            first ??= last
          }
        }
      )
      chat.dispose({ disposeSequence: false })
      return { first: first ?? last, last }
    }
    // Tokens/s of both replies together, from the first text of either to the last of both.
    const together = (spans: Array<{ first: number; last: number }>) => (2 * TOKENS) / ((Math.max(...spans.map((x) => x.last)) - Math.min(...spans.map((x) => x.first))) / 1000)
    const pairRuntime: number[] = []
    const pairDirect: number[] = []
    for (let i = 0; i < 3; i++) {
      pairRuntime.push(together(await Promise.all([runtimeSpan(), runtimeSpan()])))
      pairDirect.push(together(await Promise.all([directSpan(0), directSpan(1)])))
    }
    await context2.dispose()
    await core.close()
    await context.dispose()
    await model.dispose()
    await llama.dispose()

    const appTps = median(app.map((r) => r.tps))
    const runtimeTps = median(viaRuntime.map((r) => r.tps))
    const directTps = median(direct.map((r) => r.tps))
    const appTtft = median(app.map((r) => r.ttft))
    const runtimeTtft = median(viaRuntime.map((r) => r.ttft))
    const directTtft = median(direct.map((r) => r.ttft))
    const replyEvent = median(app.map((r) => r.replyEvent))
    const appOwnTtft = median(nullTtft.slice(1))
    const ratio = appTps / directTps
    const added = appTtft - directTtft
    const coreGrowth = (rssLoaded - rssBefore) / MB
    console.log(`tokens/s from the first text to the last as the reader receives them (median of ${RUNS}, ${TOKENS} tokens)`)
    console.log(`  through the app (chat service, bridge, store)   ${appTps.toFixed(1)}   vs node-llama-cpp direct ${directTps.toFixed(1)}   ratio ${ratio.toFixed(2)}×   goal: ≥ 0.9×`)
    console.log(`  runtime → engine process only                   ${runtimeTps.toFixed(1)}   ratio ${(runtimeTps / directTps).toFixed(2)}×`)
    console.log(`time to first token: direct ${directTtft.toFixed(1)} ms, runtime ${runtimeTtft.toFixed(1)} ms (+${(runtimeTtft - directTtft).toFixed(1)}), app ${appTtft.toFixed(1)} ms (+${added.toFixed(1)}; its 'reply' event at ${replyEvent.toFixed(1)} ms)`)
    console.log(`  the app's own time to first token with a runtime that answers at once: ${appOwnTtft.toFixed(1)} ms, so the built-in engine adds ${(appTtft - appOwnTtft).toFixed(1)} ms to the app   goal: ≤ 20 ms`)
    console.log(`core process RSS when the model loads   ${coreGrowth >= 0 ? '+' : ''}${coreGrowth.toFixed(1)} MB   (engine process RSS ${((ps.rssBytes ?? 0) / MB).toFixed(1)} MB, weights ${((ps.models[0]?.weightsBytes ?? 0) / MB).toFixed(1)} MB)`)
    const pairRatio = median(pairRuntime) / median(pairDirect)
    console.log(`two requests at once, both replies together (median of 3, ${TOKENS} tokens each; the engine's slots ${ps.models[0]?.slots ?? '?'})`)
    console.log(`  runtime → engine process                        ${median(pairRuntime).toFixed(1)}   vs node-llama-cpp direct (2 sequences) ${median(pairDirect).toFixed(1)}   ratio ${pairRatio.toFixed(2)}×   goal: ≥ 0.9×`)
    console.log(`${ratio >= 0.9 ? 'PASS' : 'FAIL'}: throughput through the app ${ratio.toFixed(2)}× direct (goal ≥ 0.9×)`)
    const engineAdds = appTtft - appOwnTtft
    console.log(`${pairRatio >= 0.9 ? 'PASS' : 'FAIL'}: two requests at once ${pairRatio.toFixed(2)}× direct (goal ≥ 0.9×)`)
    console.log(`${engineAdds <= 20 ? 'PASS' : 'FAIL'}: time to first token the built-in engine adds to the app ${engineAdds.toFixed(1)} ms (runtime path alone ${(runtimeTtft - directTtft).toFixed(1)} ms; goal ≤ 20 ms)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
