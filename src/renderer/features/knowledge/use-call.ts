import type { Contract } from '../../../shared/bridge/contract'
import type { CallNames, InputOf, OutputOf } from '../../../shared/bridge/define'
import { AppErrorException } from '../../../shared/errors/app-error'
import { bridge } from '../../stores/app-store'

/**
 * A bridge call that throws the core's error whole (an AppErrorException: its errorType, status
 * and detail kept), so a page can act on the type and show the message.
 */
export async function call<K extends CallNames<Contract>>(name: K, input: InputOf<Contract[K]>): Promise<OutputOf<Contract[K]>> {
  const result = await bridge().call(name, input)
  if (!result.ok) throw new AppErrorException(result.error)
  return result.value
}

export const errorText = (error: unknown): string => (error instanceof AppErrorException ? error.error.message : error instanceof Error ? error.message : String(error))
