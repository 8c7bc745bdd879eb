import { describe, expect, it } from 'vitest'
import { checkJsonSchema } from '../../../src/core/engine/json-schema-check'

// A model's reply names its own keys: one named after an object member is a key like any other.
describe('the reply schema check takes a key named after an object member as a key', () => {
  const closed = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }

  it('refuses an extra key constructor, toString or __proto__ where no more keys are allowed', () => {
    for (const key of ['constructor', 'toString', '__proto__']) {
      expect(checkJsonSchema(JSON.parse(`{"a":"x","${key}":1}`), closed), key).toEqual([`$: "${key}" is not allowed`])
    }
  })

  it('finds a required key missing even when an object has it on its prototype', () => {
    expect(checkJsonSchema(JSON.parse('{}'), { type: 'object', required: ['constructor', 'toString'] })).toEqual(['$: missing "constructor"', '$: missing "toString"'])
  })

  it('control: declared keys are checked and pass', () => {
    expect(checkJsonSchema({ a: 'x' }, closed)).toEqual([])
    expect(checkJsonSchema({ constructor: 'x' }, { type: 'object', properties: { constructor: { type: 'number' } } })).toEqual(['$.constructor: must be number'])
  })
})
