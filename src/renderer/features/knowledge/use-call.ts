import type { Contract } from '../../../shared/bridge/contract'
import type { CallNames, InputOf, OutputOf } from '../../../shared/bridge/define'
import { bridge } from '../../stores/app-store'

/** A bridge call that throws the catalogue error's message (the pages show it as text). */
export async function call<K extends CallNames<Contract>>(name: K, input: InputOf<Contract[K]>): Promise<OutputOf<Contract[K]>> {
  const result = await bridge().call(name, input)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))
