import { expect, test, type Page } from '@playwright/test'
import { createServer, type Server } from 'node:http'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { XSS_CORPUS } from '../fixtures/xss-corpus'
import { configureProvider, pickModel, snap } from './helpers'
import Database from 'better-sqlite3'
import { join } from 'node:path'

// Issue 20: model output that tries to run script, fetch, disguise or crash, streamed through
// the real app from a fake OpenAI server.
const KEY = 'sk-e2e-security-key-0123456789'
let fake: FakeOpenAI
let canary: Server
let canaryUrl = ''
const canaryHits: string[] = []

const DEEP_QUOTE = `${'>'.repeat(3000)} deep quote end`
const DEEP_LIST = Array.from({ length: 500 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')
const BIDI_TEXT = 'https://example.com/\u202egnp.exe'

function replyFor(last: string): string[] | { citations: string[] } {
  if (last === 'corpus') return XSS_CORPUS.map((c) => `${c.markdown.replaceAll('CANARY', canaryUrl)}\n\n`)
  if (last === 'deep quote') return [DEEP_QUOTE]
  if (last === 'deep list') return [DEEP_LIST]
  if (last === 'deep emphasis') return [`${'*'.repeat(6000)}emphasis end${'*'.repeat(6000)}`]
  if (last.startsWith('boundary')) return [`reply to ${last}`]
  if (last === 'citations') return { citations: ['data:text/html,<script>parent.__xss=1</script>', 'file:///etc/passwd', 'javascript:parent.__xss=2', 'https://good.example/source'] }
  if (last === 'bidi link') return [`Check [${BIDI_TEXT}](https://evil.example/payload) and [apple.com](https://\u0430pple.com/) and [plain](https://example.com/plain).`]
  return ['ok']
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  canary = createServer((req, res) => {
    canaryHits.push(req.url ?? '')
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r))
  canaryUrl = `http://127.0.0.1:${(canary.address() as { port: number }).port}`
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Security']) }
    const reply = replyFor(String(body.messages.at(-1)?.content ?? ''))
    if (Array.isArray(reply)) return { kind: 'sse', chunks: chatChunks(reply) }
    const chunks = chatChunks(['See the sources.'])
    const head = chunks[0] as Record<string, unknown>
    chunks.splice(1, 0, { ...head, citations: reply.citations, choices: [{ index: 0, delta: { content: '' }, finish_reason: null }] })
    return { kind: 'sse', chunks }
  })
})

test.afterAll(async () => {
  await fake.close()
  await new Promise<void>((r) => canary.close(() => r()))
})

async function ask(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 20_000 })
  return reply
}

async function newChat(page: Page) {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
}

/** Every anchor and image in the conversation, as the DOM has them. */
const unsafeElements = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('[data-testid="message-list"]')!
    const bad: string[] = []
    for (const a of Array.from(list.querySelectorAll('a'))) {
      const href = a.getAttribute('href')
      if (href === null || href === '' || !/^(https?:|mailto:)/.test(href)) bad.push(`a[href=${href}]`)
    }
    for (const img of Array.from(list.querySelectorAll('img'))) if (!/^(data:image\/|blob:)/.test(img.getAttribute('src') ?? '')) bad.push(`img[src=${img.getAttribute('src')}]`)
    for (const tag of ['script', 'iframe', 'object', 'embed', 'style:not(svg style)', 'foreignObject img', 'svg a']) {
      for (const el of Array.from(list.querySelectorAll(tag))) bad.push(el.outerHTML.slice(0, 80))
    }
    for (const el of Array.from(list.querySelectorAll('*'))) for (const attr of Array.from(el.attributes)) if (attr.name.startsWith('on')) bad.push(`${el.localName}[${attr.name}]`)
    return bad
  })

test('the XSS corpus renders inert: nothing runs, nothing is fetched, no unsafe link or element', async ({ page }) => {
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  await newChat(page)
  const reply = await ask(page, 'corpus')
  await expect(reply.locator('svg').first()).toBeVisible({ timeout: 20_000 }) // mermaid rendered
  await expect(page.getByTestId('message-render-failed')).toHaveCount(0)
  await snap(page, 'security-xss-corpus')
  expect(await unsafeElements(page)).toEqual([])
  // Blocked links are text, not anchors: clicking them opens nothing (not even the app again).
  const pages: unknown[] = []
  page.context().on('page', (p) => pages.push(p))
  for (const name of ['js link', 'data link', 'file link', 'app link', 'empty link', 'ref link']) {
    await reply.getByText(name, { exact: true }).click()
  }
  await page.waitForTimeout(300)
  expect(pages).toHaveLength(0)
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined()
  expect(dialogs).toEqual([])
  expect(canaryHits).toEqual([])
})

test('citations follow the same link policy: data:, file: and javascript: are not links', async ({ page }) => {
  await newChat(page)
  const reply = await ask(page, 'citations')
  const citations = reply.getByTestId('citations')
  await expect(citations.locator('li')).toHaveCount(4)
  await expect(citations.locator('a')).toHaveCount(1)
  await expect(citations.locator('a')).toHaveAttribute('href', 'https://good.example/source')
  await expect(citations.getByTestId('blocked-link')).toHaveCount(3)
})

test('3,000 nested quotes and a 500-level list neither crash the page nor the conversation, also when it is opened again', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await newChat(page)
  const quote = await ask(page, 'deep quote')
  await expect(quote).toContainText('deep quote end')
  const list = await ask(page, 'deep list')
  await expect(list).toContainText('level 499')
  const emphasis = await ask(page, 'deep emphasis')
  await expect(emphasis).toContainText('emphasis end')
  const url = page.url()
  await page.reload()
  await page.goto(url)
  await expect(page.getByTestId('message-assistant')).toHaveCount(3, { timeout: 20_000 })
  await expect(page.getByTestId('message-assistant').first()).toContainText('deep quote end')
  await expect(page.getByRole('navigation')).toBeVisible()
  expect(errors.filter((e) => /call stack/i.test(e))).toEqual([])
})

test('a link whose text hides bidi characters, or whose host is an IDN, shows its real target before opening', async ({ page }) => {
  await newChat(page)
  const reply = await ask(page, 'bidi link')
  // The override inside the first link does not reverse the text after it.
  await expect(reply.getByRole('link', { name: 'plain' })).toBeVisible()
  expect(await reply.locator('a').first().evaluate((a) => getComputedStyle(a).unicodeBidi)).toBe('isolate')
  const pages: unknown[] = []
  page.context().on('page', (p) => pages.push(p))
  await reply.locator('a[data-link-check]').first().click()
  await expect(page.getByTestId('link-check')).toBeVisible()
  await expect(page.getByTestId('link-check-host')).toHaveText('evil.example')
  await snap(page, 'security-link-check')
  await page.getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByTestId('link-check')).toHaveCount(0)
  await reply.locator('a[data-link-check]').nth(1).click()
  await expect(page.getByTestId('link-check-host')).toHaveText('xn--pple-43d.com')
  await page.getByRole('button', { name: 'Cancel' }).click()
  expect(pages).toHaveLength(0)
  // An ordinary link is an ordinary link.
  await expect(reply.getByRole('link', { name: 'plain' })).not.toHaveAttribute('data-link-check', 'true')
})

test('a message that cannot be drawn shows as raw text with a notice, and the conversation stays', async ({ page }) => {
  await newChat(page)
  await ask(page, 'boundary one')
  await ask(page, 'boundary two')
  // Damage the stored second reply the way a bad import or an old bug could: a part the view
  // cannot draw. (The server keeps running; SQLite allows this second writer.)
  const db = new Database(join(process.env['E2E_DATA_DIR']!, 'main', 'switchboard.db'))
  try {
    db.pragma('busy_timeout = 5000')
    const damage = db.prepare("UPDATE messages SET content = ? WHERE text = 'reply to boundary two' AND status = 'complete'")
    const content = JSON.stringify([{ type: 'text', text: 'reply to boundary two' }, { type: 'image_url', imageUrl: null }])
    // The core writes the finished reply just after the page shows it.
    await expect.poll(() => damage.run(content).changes, { timeout: 10_000 }).toBe(1)
  } finally {
    db.close()
  }
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.reload()
  const failed = page.getByTestId('message-render-failed')
  await expect(failed).toHaveCount(1, { timeout: 20_000 })
  await expect(failed).toContainText('could not be formatted')
  await expect(failed).toContainText('reply to boundary two')
  await expect(page.getByTestId('message-assistant').filter({ hasText: 'reply to boundary one' })).toHaveCount(1)
  await expect(page.getByTestId('composer-input')).toBeVisible()
  await snap(page, 'security-message-boundary')
})
