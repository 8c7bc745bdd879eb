import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { bindingTestRunner, isBindingTestModule, type RelayedProcess, type RelayReply } from '../../../src/main/binding-test-relay'

const TEST_FILE = '/opt/Switchboard/resources/app.asar/node_modules/node-llama-cpp/dist/bindings/utils/testBindingBinary.js'

describe('the binding-test relay (the main process side)', () => {
  it('starts only node-llama-cpp’s binding test, and relays its messages and exit', () => {
    expect(isBindingTestModule(TEST_FILE)).toBe(true)
    expect(isBindingTestModule('C:\\Program Files\\Switchboard\\resources\\app.asar\\node_modules\\node-llama-cpp\\dist\\bindings\\utils\\testBindingBinary.js')).toBe(true)
    expect(isBindingTestModule('/tmp/evil/testBindingBinary.js')).toBe(false)
    expect(isBindingTestModule(`${TEST_FILE}.evil.js`)).toBe(false)

    const forked: string[] = []
    const replies: RelayReply[] = []
    const child = Object.assign(new EventEmitter(), { sent: [] as unknown[], postMessage(m: unknown) { this.sent.push(m) }, kill: () => true })
    const runner = bindingTestRunner((path) => (forked.push(path), child as unknown as RelayedProcess), (r) => replies.push(r))

    runner.handle({ type: 'binding-test:fork', id: 1, modulePath: '/tmp/evil/testBindingBinary.js', env: {} })
    expect(forked).toEqual([])
    expect(replies).toEqual([{ type: 'binding-test:exit', id: 1, code: 1 }])

    runner.handle({ type: 'binding-test:fork', id: 2, modulePath: TEST_FILE, env: { TEST_BINDING_CP: 'true' } })
    expect(forked).toEqual([TEST_FILE])
    child.emit('message', { type: 'ready' })
    runner.handle({ type: 'binding-test:send', id: 2, message: { type: 'start' } })
    expect(child.sent).toEqual([{ type: 'start' }])
    child.emit('exit', 0)
    expect(replies.slice(1)).toEqual([
      { type: 'binding-test:message', id: 2, message: { type: 'ready' } },
      { type: 'binding-test:exit', id: 2, code: 0 }
    ])
  })
})
