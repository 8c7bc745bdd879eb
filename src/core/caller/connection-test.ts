import { AppErrorException } from '../../shared/errors/app-error'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from './model-caller'

/**
 * Test connection: a one-token chat with the chosen model, through the one caller, so what it
 * costs is in the usage log (scene Connectivity Checker) like any other call. No retries and a
 * short silence limit: the user is waiting on the button.
 */
export async function testConnection(providers: Pick<ProviderService, 'testModel'>, caller: ModelCaller, providerId: string, modelId?: string): Promise<{ ok: true; modelId: string; ms: number }> {
  const chosen = await providers.testModel(providerId, modelId)
  const started = Date.now()
  const fail = (cause: unknown): never => {
    if (cause instanceof AppErrorException && cause.error.errorType === 'ProviderBizError' && /does not offer chat/.test(cause.error.message))
      throw new AppErrorException({ errorType: 'ConnectionCheckFailed', status: 400, message: `${chosen.name} does not offer chat.` })
    throw cause
  }
  const result = await (async () => {
    const run = caller.run({
      target: { providerId, modelId: chosen.modelId },
      scene: 'Connectivity Checker',
      messages: [{ role: 'user', content: 'hi' }],
      params: { max_tokens: 1, stream: true },
      call: { idleTimeoutMs: 20_000, maxRetries: 0 }
    })
    for (let next = await run.next(); ; next = await run.next()) if (next.done) return next.value
  })().catch(fail)
  const error = result.error?.data
  if (error) {
    // A wrong key keeps its own type (its fix is the key); anything else is a failed check.
    if (/^Invalid|NoOpenAIAPIKey/.test(error.errorType)) throw new AppErrorException(error)
    const hint = chosen.openAIStyle ? ' If you use a proxy address, it should end with /v1.' : ''
    throw new AppErrorException({
      errorType: 'ConnectionCheckFailed',
      status: error.status ?? 400,
      provider: providerId,
      message: `Test connection failed: ${error.message}.${hint}`,
      detail: { cause: error.errorType }
    })
  }
  return { ok: true, modelId: chosen.modelId, ms: Date.now() - started }
}
