import { appProcedures } from './procedures/app'
import { catalogueProcedures } from './procedures/catalogue'
import { dataProcedures } from './procedures/data'
import { secretProcedures } from './procedures/secrets'
import { localProcedures } from './procedures/local'
import { chatProcedures } from './procedures/chat'
import { providerProcedures } from './procedures/providers'

/**
 * Every procedure the renderer (or the CLI, or a test) can reach, declared once.
 * Each feature declares its procedures in procedures/<feature>.ts and is spread in here
 * (one line per feature; keep the order).
 */
export const contract = {
  ...appProcedures,
  ...localProcedures,
  ...catalogueProcedures,
  ...providerProcedures,
  ...chatProcedures,
  // store:
  ...dataProcedures,
  ...secretProcedures
} as const

export type Contract = typeof contract
