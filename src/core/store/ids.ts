import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * 16 characters of [0-9a-z] (~82 bits). Lower case on purpose: ids are indexed in FTS5,
 * whose tokenizer folds case, so mixed-case ids could collide there.
 */
export function newId(): string {
  const bytes = randomBytes(16)
  let id = ''
  for (const byte of bytes) id += ALPHABET[byte % 36]
  return id
}
