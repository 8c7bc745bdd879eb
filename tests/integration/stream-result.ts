import type { BridgeClient, StreamHandlers } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { Result } from '../../src/shared/errors/app-error'

/** Runs a stream procedure to its end and resolves with its result (or the refusal), ignoring its events. */
export function streamResult<R>(client: BridgeClient<Contract>, proc: string, input: object): Promise<Result<R>> {
  return new Promise((resolve) => {
    const stream = client.stream as unknown as (p: string, i: object, h: StreamHandlers<unknown, unknown>) => void
    stream(proc, input, { onEnd: (r) => resolve(r as Result<R>), onRefused: (error) => resolve({ ok: false, error }) })
  })
}
