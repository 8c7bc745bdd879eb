// Child process of the crash test: streams replies into the database until it is killed.
// Every ack is written to stdout only AFTER the change it names was committed.
import { writeSync } from 'node:fs'
import { openStore } from '../../../src/core/store'

const dataDir = process.argv[2]!
const ack = (record: object) => {
  let bytes = Buffer.from(JSON.stringify(record) + '\n')
  // stdout is a non-blocking pipe: on a loaded machine the parent reads late and a write
  // answers EAGAIN. Retry until the whole line is out; an ack is never dropped or cut.
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(1, bytes))
    } catch (error) {
      if ((error as { code?: string }).code !== 'EAGAIN') throw error
    }
  }
}

const { store } = openStore({ dataDir, dailyBackupMs: 0 })
const agent = store.agents.get('crashagent') ?? store.agents.create({ id: 'crashagent', name: 'Crash' })
const conversation = store.conversations.get('crashconv') ?? store.conversations.create({ id: 'crashconv', agentId: agent.id })
ack({ kind: 'ready' })

const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ')
let n = 0
for (;;) {
  const question = store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `question ${n}` }] })
  ack({ kind: 'complete', id: question.id, text: `question ${n}` })
  // A short interval so the timer flushes too, not only the explicit ones below.
  const writer = store.messages.beginStreaming({ conversationId: conversation.id, parentId: question.id }, { flushIntervalMs: 5 })
  ack({ kind: 'flush', id: writer.id, text: '' })
  const chunks = 40 + (n % 40)
  for (let i = 0; i < chunks; i++) {
    writer.appendText(`${words[(i + n) % words.length]} ${'x'.repeat(200)} `)
    if (i % 3 === 0) {
      writer.flush()
      ack({ kind: 'flush', id: writer.id, text: (writer.message.content[0] as { text: string }).text })
    }
    // Yield so timed flushes run between appends.
    await new Promise((resolve) => setImmediate(resolve))
  }
  const final = writer.finish('complete', { usage: { totalTokens: chunks } })
  ack({ kind: 'complete', id: final.id, text: (final.content[0] as { text: string }).text })
  n++
}
