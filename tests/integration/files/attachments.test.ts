import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { toAppError } from '../../../src/core/bridge/to-app-error'
import { MemoryBackend } from '../../../src/core/secrets'
import { AttachmentService } from '../../../src/core/attachments/attachment-service'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { minimalPdf } from '../../fixtures/minimal-pdf'
import { readyTestCore } from '../test-core'

// Attachments and embeddings through the bridge: files land in the data folder under their
// hash, their text reaches the provider in the chat request, failures carry the spec's texts.
const KEY = 'sk-test-files-0123456789abcdef'
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
const b64 = (data: Uint8Array | string) => Buffer.from(data).toString('base64')

beforeAll(async () => {
  fake = await startFakeOpenAI()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-files-'))
  const app = await readyTestCore('sb-files-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: fake.url }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
})

afterAll(async () => {
  await core.close()
  await fake.close()
})

beforeEach(() => fake.reset())

function sendAndWait(input: Record<string, unknown>): Promise<Result<Message>> {
  return new Promise((resolve) => {
    client.stream('chat.send', input as never, { onEvent: () => undefined, onEnd: resolve })
  })
}

describe('files.upload', () => {
  it('stores a PDF under its sha256 in the data folder and counts the tokens of its text', async () => {
    const pdf = minimalPdf('The secret ingredient is cardamom')
    const attachment = ok(await client.call('files.upload', { name: 'recipe.pdf', mimeType: 'application/pdf', dataBase64: b64(pdf) }))
    const sha = createHash('sha256').update(pdf).digest('hex')
    expect(attachment).toMatchObject({ kind: 'pdf', truncated: false, file: { name: 'recipe.pdf', sha256: sha, size: pdf.length, path: `files/${sha}.pdf` } })
    expect(attachment.tokens).toBeGreaterThan(5)
    expect(readFileSync(join(dataDir, attachment.file.path))).toEqual(Buffer.from(pdf))
    // The same content again is one file on disk and the same record.
    const again = ok(await client.call('files.upload', { name: 'recipe.pdf', dataBase64: b64(pdf) }))
    expect(again.file.id).toBe(attachment.file.id)
    expect(ok(await client.call('files.get', { fileIds: [attachment.file.id, 'nope'] }))).toEqual([attachment])
  })

  it('cuts text over the size cap and says so', async () => {
    const service = new AttachmentService({ files: core.services().store.files, dataDir }, { maxBytes: 1_000_000, maxTokens: 100 })
    const long = Array.from({ length: 200 }, (_, i) => `line ${i} of a long log`).join('\n')
    const attachment = await service.upload({ name: 'big.log', bytes: new TextEncoder().encode(long) })
    expect(attachment.truncated).toBe(true)
    expect(attachment.tokens).toBeLessThanOrEqual(100)
    expect(service.context([attachment.file.id])[0]?.text).toMatch(/^line 0 of a long log\n[\s\S]*cut at the size cap\]$/)
    await expect(service.upload({ name: 'huge.txt', bytes: new Uint8Array(1_000_001).fill(65) })).rejects.toMatchObject({
      error: { errorType: 'FileUploadError', message: expect.stringMatching(/^Upload failed: huge\.txt is 1\.0 MB; the limit is 1 MB/) }
    })
  })

  it('refuses unsupported and unreadable files with the upload and extraction texts, storing nothing', async () => {
    const zip = await client.call('files.upload', { name: 'a.zip', mimeType: 'application/zip', dataBase64: b64('PK\u0003\u0004') })
    expect(zip.ok ? undefined : zip.error).toMatchObject({ errorType: 'FileUploadError', message: expect.stringMatching(/^Upload failed: a\.zip is not a supported file/) })
    const broken = new TextEncoder().encode('%PDF-1.7 truncated')
    const bad = await client.call('files.upload', { name: 'broken.pdf', dataBase64: b64(broken) })
    expect(bad.ok ? undefined : bad.error).toMatchObject({ errorType: 'FileExtractionError', status: 422 })
    expect(existsSync(join(dataDir, 'files', `${createHash('sha256').update(broken).digest('hex')}.pdf`))).toBe(false)
  })
})

describe('chat.send with files', () => {
  it('sends the extracted text of attached files as context before the message and keeps the ids on the message', async () => {
    fake.setDefault('/chat/completions', { kind: 'sse', chunks: chatChunks(['Cardamom.']) })
    const pdf = ok(await client.call('files.upload', { name: 'notes.pdf', dataBase64: b64(minimalPdf('Meeting moved to Thursday')) }))
    const code = ok(await client.call('files.upload', { name: 'main.py', dataBase64: b64('print("hi")\n') }))
    const reply = ok(await sendAndWait({ text: 'What do these say?', files: [pdf.file.id, code.file.id], providerId: 'openai', modelId: 'gpt-4o-mini' }))
    // The first request is the reply; a second one titles the new conversation.
    const body = fake.requestsTo('/chat/completions')[0]?.body as { messages: { role: string; content: unknown }[] }
    const sentUser = body.messages.filter((m) => m.role === 'user').at(-1)
    expect(sentUser?.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^<file name="notes.pdf">\n--- page 1 ---\nMeeting moved to Thursday\n<\/file>$/) },
      { type: 'text', text: '<file name="main.py">\nprint("hi")\n\n</file>' },
      { type: 'text', text: 'What do these say?' }
    ])
    const messages = ok(await client.call('chat.messages', { conversationId: reply.conversationId }))
    const user = messages.find((m) => m.role === 'user')
    expect(user?.files).toEqual([pdf.file.id, code.file.id])
    // The stored text stays the user's words only; the files are context, not content.
    expect(user?.content).toEqual([{ type: 'text', text: 'What do these say?' }])

    // Editing the message keeps its files: the new branch sends them again.
    const before = fake.requestsTo('/chat/completions').length
    const edited = await new Promise<Result<Message>>((resolve) => {
      client.stream('chat.editAndResend', { messageId: user!.id, text: 'And now?' }, { onEvent: () => undefined, onEnd: resolve })
    })
    ok(edited)
    const resent = fake.requestsTo('/chat/completions')[before]?.body as { messages: { role: string; content: unknown }[] }
    const parts = resent.messages.at(-1)?.content as { type: string; text: string }[]
    expect(parts.map((p) => p.text.split('\n')[0])).toEqual(['<file name="notes.pdf">', '<file name="main.py">', 'And now?'])
  })

  it('a message with only files (no text) is accepted', async () => {
    fake.setDefault('/chat/completions', { kind: 'sse', chunks: chatChunks(['Read it.']) })
    const note = ok(await client.call('files.upload', { name: 'todo.md', dataBase64: b64('# Todo\n- ship it\n') }))
    ok(await sendAndWait({ text: '', files: [note.file.id], providerId: 'openai', modelId: 'gpt-4o-mini' }))
    const body = fake.requestsTo('/chat/completions')[0]?.body as { messages: { role: string; content: unknown }[] }
    expect(body.messages.at(-1)?.content).toEqual([{ type: 'text', text: '<file name="todo.md">\n# Todo\n- ship it\n\n</file>' }])
  })
})

describe('the embedding service (used by the core, not the bridge)', () => {
  it('returns float vectors with their dimensions, one per input', async () => {
    fake.setDefault('/embeddings', (req) => {
      const input = (req.body as { input: string[] }).input
      return { kind: 'json', body: { object: 'list', model: 'text-embedding-3-small', data: input.map((_, i) => ({ object: 'embedding', index: i, embedding: [i, 0.5, -0.25, 1] })), usage: { prompt_tokens: 4, total_tokens: 4 } } }
    })
    const result = await core.services().embeddings.create({ providerId: 'openai', modelId: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 4, scene: 'Knowledge Base Indexing' })
    expect(result).toEqual({ embeddings: [[0, 0.5, -0.25, 1], [1, 0.5, -0.25, 1]], dimensions: 4, usage: { promptTokens: 4, totalTokens: 4 } })
    expect(fake.requestsTo('/embeddings')[0]?.body).toMatchObject({ model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 4, encoding_format: 'float' })
  })

  it('refuses an answer with the wrong number of vectors', async () => {
    const error = await core.services().embeddings.create({ providerId: 'openai', modelId: 'text-embedding-3-small', input: ['a', 'b', 'c'], scene: 'Knowledge Base Indexing' }).catch(toAppError)
    expect(error).toMatchObject({ errorType: 'UpstreamMalformedResponse' })
  })
})
