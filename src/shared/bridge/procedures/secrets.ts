import { z } from 'zod'
import { call } from '../define'
import type { KeychainStatus, KeyInfo } from '../../data/key-info'

/** Key names: a provider id, or `<provider>.<field>` for providers with several secrets. */
const name = z.string().regex(/^[a-z0-9][a-z0-9._:-]{0,99}$/i, 'letters, digits, . _ : - only')

/**
 * API keys. The renderer can set and delete a key and learn { hasKey, last4 }; no procedure
 * returns a key. Errors never echo the value (its schema has no pattern to report against).
 */
export const secretProcedures = {
  'secrets.status': call<KeychainStatus>()(z.object({}).strict()),
  'secrets.info': call<KeyInfo>()(z.object({ name }).strict()),
  'secrets.list': call<KeyInfo[]>()(z.object({ names: z.array(name).max(200) }).strict()),
  'secrets.set': call<{ key: KeyInfo; status: KeychainStatus }>()(z.object({ name, value: z.string().min(1).max(20_000) }).strict()),
  'secrets.delete': call<KeyInfo>()(z.object({ name }).strict())
} as const
