import { describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { modelIdProblem, modelPath } from '../../../src/core/runtime/model-path'
import { falEndpoint } from '../../../src/core/runtime/images/fal-image'
import { createBedrockRuntime } from '../../../src/core/runtime/providers/bedrock/bedrock-runtime'
import type { StreamEvent } from '../../../src/shared/stream/events'

const refused = (run: () => unknown): AppErrorException => {
  try {
    run()
  } catch (error) {
    if (error instanceof AppErrorException) return error
    throw error
  }
  throw new Error('not refused')
}

describe('a model id in a URL is a value', () => {
  it('keeps the ids providers use, each part one segment', () => {
    expect(modelPath('@cf/meta/llama-3-8b-instruct', 'cloudflare')).toBe('@cf/meta/llama-3-8b-instruct')
    expect(modelPath('anthropic.claude-3-5-sonnet-20240620-v1:0', 'bedrock')).toBe('anthropic.claude-3-5-sonnet-20240620-v1:0')
    expect(modelPath('fal-ai/flux pro/v1.1', 'fal')).toBe('fal-ai/flux%20pro/v1.1')
    expect(modelPath('a+b=c&d', 'x')).toBe('a%2Bb%3Dc%26d')
  })

  it('refuses what would walk the URL, naming why', () => {
    for (const model of ['', '..', '.', 'a/../b', 'a//b', '/a', 'a/', 'a?b', 'a#b', 'a%2fb', 'a\\b', 'a\u0000', 'a\r\nb', 'a\u007f']) {
      expect(modelIdProblem(model), model).toBeDefined()
      const error = refused(() => modelPath(model, 'cloudflare'))
      expect(error.error).toMatchObject({ errorType: 'ValidationError', status: 400, provider: 'cloudflare' })
      expect(error.error.message).toContain('never a path')
    }
  })

  it('Fal’s queue path and Bedrock’s model id take the same rule', async () => {
    expect(refused(() => falEndpoint({ model: 'fal-ai/../../admin', params: { prompt: 'p' } })).error.errorType).toBe('ValidationError')
    const runtime = createBedrockRuntime({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', region: 'us-east-1' }, { providerId: 'bedrock' })
    const events: StreamEvent[] = []
    for await (const event of runtime.chat!({ model: 'anthropic.claude/../../x', messages: [{ role: 'user', content: 'x' }] })) events.push(event)
    expect(events[0]).toMatchObject({ type: 'error', data: { errorType: 'ValidationError' } })
    await expect(runtime.embeddings!({ model: '..', input: 'x' })).rejects.toMatchObject({ error: { errorType: 'ValidationError' } })
  })
})
