import { expect, test, type Locator, type Page } from '@playwright/test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { freePort, ownServerPage, startServer, stopServer } from './own-server'
import { configureProvider, openApp, pickModel, snap } from './helpers'

// Issue 17 (the chat half) in the real app against a fake OpenAI server: reply typography by
// computed style in both themes, following the reply on send and "Jump to latest", retries
// shown on the message, Copied / Undo / Continue, the picker as a listbox, stored defaults in
// the user's language, and a message typed and sent while the core is down that goes out when
// it is back (a server of this spec's own, killed and started again).
const KEY = 'sk-e2e-polish-0123456789'
let fake: FakeOpenAI
let titles = true

const MARKDOWN = [
  '# Heading one\n\n',
  '## Heading two\n\n',
  '### Heading three\n\n',
  'Body text with `inline code` and a [link](https://example.com).\n\n',
  '1. first\n2. second\n3. third\n\n',
  '* apple\n* pear\n\n',
  '- [x] done\n- [ ] to do\n\n',
  '> quoted words\n\n',
  '---\n\n',
  '| a | b |\n|---|---|\n| 1 | 2 |\n'
]

test.describe.configure({ mode: 'serial' })

const lastUser = (req: RecordedRequest) => String((req.body as { messages: { content: string }[] }).messages.at(-1)?.content ?? '')

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    if (body.messages[0]?.content.startsWith('You write a title')) {
      return titles ? { kind: 'sse', chunks: chatChunks(['Polish ', 'check']) } : { kind: 'json', status: 400, body: errorBody('no titles today') }
    }
    const last = lastUser(req)
    if (last.includes('think first')) return { kind: 'sse', chunks: chatChunks(['An answer after thinking.'], { reasoning: ['Let me ', 'think.'] }), delayMs: 30 }
    if (last.includes('markdown please')) return { kind: 'sse', chunks: chatChunks(MARKDOWN) }
    if (last.includes('long please')) return { kind: 'sse', chunks: chatChunks(Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of a long answer.\n\n`)) }
    // chat.continue asks with an instruction of its own: answer it slowly too, to stop it again.
    if (last.includes('slow') || last.startsWith('Continue your previous answer')) return { kind: 'sse', chunks: chatChunks(Array.from({ length: 150 }, (_, i) => `word${i}\n\n`)), delayMs: 60 }
    return { kind: 'sse', chunks: chatChunks([`You said: ${last}.`]) }
  })
})

test.afterAll(async () => fake.close())

async function pickMini(page: Page) {
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await expect(page.getByTestId('model-chip-model')).toContainText('mini')
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

async function newConversation(page: Page, first = 'hello there') {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickMini(page)
  await send(page, first)
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
}

const distanceFromBottom = (page: Page) =>
  page.getByTestId('message-list').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)

test('reply typography: headings, lists, quotes, rules, tables and code have a hierarchy in light and dark', async ({ page }) => {
  await newConversation(page, 'markdown please')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply.locator('table')).toBeVisible()
  const styles = async () =>
    reply.evaluate((el) => {
      const css = (selector: string) => getComputedStyle(el.querySelector(selector)!)
      const px = (value: string) => Number.parseFloat(value)
      return {
        h1: { size: px(css('h1').fontSize), weight: Number(css('h1').fontWeight), color: css('h1').color },
        h2: { size: px(css('h2').fontSize), weight: Number(css('h2').fontWeight) },
        h3: { size: px(css('h3').fontSize) },
        body: { size: px(css('p').fontSize) },
        ol: { listStyle: css('ol').listStyleType, display: css('ol > li').display, padding: px(css('ol').paddingLeft) },
        ul: { listStyle: css('ul:not(.contains-task-list)').listStyleType },
        task: { checkbox: el.querySelectorAll('li.task-list-item input[type="checkbox"]').length, listStyle: css('li.task-list-item').listStyleType },
        quote: { width: css('blockquote').borderLeftWidth, style: css('blockquote').borderLeftStyle, color: css('blockquote').borderLeftColor },
        hr: { style: css('hr').borderTopStyle, width: css('hr').borderTopWidth },
        code: { background: css('p code').backgroundColor },
        link: { decoration: css('a').textDecorationLine },
        th: { weight: Number(css('th').fontWeight), border: css('th').borderTopStyle }
      }
    })
  const light = await styles()
  expect(light.h1.size).toBeGreaterThan(light.h2.size)
  expect(light.h2.size).toBeGreaterThan(light.h3.size)
  expect(light.h3.size).toBeGreaterThan(light.body.size)
  expect(light.h1.weight).toBeGreaterThanOrEqual(600)
  expect(light.h2.weight).toBeGreaterThanOrEqual(600)
  expect(light.ol).toMatchObject({ listStyle: 'decimal', display: 'list-item' })
  expect(light.ol.padding).toBeGreaterThan(0)
  expect(light.ul.listStyle).toBe('disc')
  expect(light.task).toEqual({ checkbox: 2, listStyle: 'none' })
  expect(light.quote).toMatchObject({ width: '4px', style: 'solid' })
  expect(light.hr).toEqual({ style: 'solid', width: '1px' })
  expect(light.code.background).not.toBe('rgba(0, 0, 0, 0)')
  expect(light.link.decoration).toBe('underline')
  expect(light.th).toMatchObject({ border: 'solid' })
  expect(light.th.weight).toBeGreaterThanOrEqual(600)
  await snap(page, 'chat-typography-light')

  // Dark theme: the same hierarchy, the colours of the dark palette.
  await page.evaluate(() => localStorage.setItem('switchboard.theme', 'dark'))
  await page.reload()
  await expect(page.locator('html')).toHaveClass(/dark/)
  const darkReply = page.getByTestId('message-assistant').last()
  await expect(darkReply.locator('table')).toBeVisible()
  const dark = await darkReply.evaluate((el) => ({
    h1: getComputedStyle(el.querySelector('h1')!).color,
    h1Size: Number.parseFloat(getComputedStyle(el.querySelector('h1')!).fontSize),
    quote: getComputedStyle(el.querySelector('blockquote')!).borderLeftColor,
    ol: getComputedStyle(el.querySelector('ol')!).listStyleType
  }))
  expect(dark.h1Size).toBe(light.h1.size)
  expect(dark.ol).toBe('decimal')
  expect(dark.h1).not.toBe(light.h1.color)
  expect(dark.quote).not.toBe(light.quote.color)
  await snap(page, 'chat-typography-dark')
  await page.evaluate(() => localStorage.setItem('switchboard.theme', 'light'))
})

test('sending while scrolled up shows the new message; scrolling up mid-reply offers Jump to latest, which follows again', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 700 })
  await newConversation(page, 'long please')
  const list = page.getByTestId('message-list')
  // Read the start of the long answer.
  await list.hover()
  await page.mouse.wheel(0, -100_000)
  await expect.poll(() => distanceFromBottom(page)).toBeGreaterThan(500)
  await expect(page.getByTestId('jump-to-latest')).toBeVisible()

  // Sending from up there brings the new message into view and follows the reply.
  await send(page, 'slow please')
  await expect(page.getByTestId('message-user').last()).toContainText('slow please')
  await expect(page.getByTestId('message-user').last()).toBeInViewport()
  await expect(page.getByTestId('message-assistant').last()).toContainText('word5')
  await expect.poll(() => distanceFromBottom(page)).toBeLessThan(80)
  await expect(page.getByTestId('jump-to-latest')).toHaveCount(0)

  // Scrolling up while it streams: the view stays where the reader is, and the button appears.
  await list.hover()
  await page.mouse.wheel(0, -3000)
  await expect(page.getByTestId('jump-to-latest')).toBeVisible()
  const away = await distanceFromBottom(page)
  expect(away).toBeGreaterThan(500)
  // The reply grows below and the view does not follow it. (Polled: on a loaded machine the reply
  // can be past any given word by the time the distance was read, and one read right after it saw
  // no growth yet.)
  await expect.poll(() => distanceFromBottom(page)).toBeGreaterThan(away + 100)
  await snap(page, 'chat-jump-to-latest')

  // Jump to latest: at the bottom again, and the reply is followed as it grows.
  await page.getByTestId('jump-to-latest').click()
  await expect(page.getByTestId('jump-to-latest')).toHaveCount(0)
  await expect.poll(() => distanceFromBottom(page)).toBeLessThan(80)
  await expect(page.getByTestId('message-assistant').last()).toContainText('word45')
  await expect.poll(() => distanceFromBottom(page)).toBeLessThan(80)
  await page.keyboard.press('Escape')
})

test('a 429 with Retry-After shows "Rate limited, retrying in … (1/2)" on the message, then the reply', async ({ page }) => {
  await newConversation(page)
  fake.enqueue('/chat/completions', { kind: 'json', status: 429, headers: { 'retry-after': '3' }, body: errorBody('Rate limit reached', 'rate_limit_exceeded', 'requests') })
  await send(page, 'after a rate limit')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply.getByTestId('retry-note')).toContainText(/Rate limited, retrying in [1-3] s… \(1\/2\)/)
  await snap(page, 'chat-retry-note')
  await expect(reply).toContainText('You said: after a rate limit.')
  await expect(reply.getByTestId('retry-note')).toHaveCount(0)
  await expect(reply).toHaveAttribute('data-status', 'complete')
})

test('Copy says Copied; deleting a message can be undone; a stopped reply is continued in place', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await newConversation(page)
  const first = page.getByTestId('message-assistant').last()
  await first.hover()
  await first.getByTestId('op-copy').click()
  await expect(first.getByTestId('op-copy')).toContainText('Copied')
  await expect(first.getByTestId('op-copy')).toContainText('Copy', { timeout: 4000 })
  await expect(first.getByTestId('op-copy')).not.toContainText('Copied')

  // A read-aloud failure shows below the toolbar (which hides when the pointer leaves), not inside it.
  fake.enqueue('/audio/speech', { kind: 'json', status: 400, body: errorBody('Unsupported voice', 'invalid_value') })
  await first.hover()
  await first.getByTestId('read-aloud-play').click()
  await expect(first.getByTestId('read-aloud-error')).toContainText('Read aloud failed')
  await expect(first.getByTestId('read-aloud').getByTestId('read-aloud-error')).toHaveCount(0)
  await page.mouse.move(5, 5)
  await expect(first.getByTestId('read-aloud-error')).toBeVisible()
  // Seen without hovering: nothing around it is transparent.
  const hidden = await first.getByTestId('read-aloud-error').evaluate((el) => {
    for (let node: Element | null = el; node; node = node.parentElement) if (getComputedStyle(node).opacity === '0') return true
    return false
  })
  expect(hidden).toBe(false)
  await first.getByTestId('read-aloud-error').getByRole('button').click()
  await expect(first.getByTestId('read-aloud-error')).toHaveCount(0)

  // Delete → hidden at once with Undo → Undo brings it back; a delete without Undo sticks.
  await first.hover()
  await first.getByTestId('op-delete').click()
  await expect(page.getByTestId('message-assistant')).toHaveCount(0)
  await expect(page.getByTestId('undo-message-toast')).toContainText('Message deleted')
  await page.getByTestId('undo-message-delete').click()
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  await expect(page.getByTestId('message-assistant')).toContainText('You said: hello there.')
  await page.reload()
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)

  // Stop a reply: the note says the user stopped it; Continue answers it in place of the button.
  await send(page, 'slow please')
  const stopped = page.getByTestId('message-assistant').last()
  await expect(stopped).toContainText('word3')
  await page.keyboard.press('Escape')
  await expect(stopped).toHaveAttribute('data-status', 'interrupted')
  const note = stopped.getByTestId('interrupted')
  await expect(note).toHaveAttribute('data-reason', 'stopped')
  await expect(note).toContainText('You stopped this reply')
  const replies = await page.getByTestId('message-assistant').count()
  const before = (await stopped.textContent())!.length
  await note.getByTestId('continue').click()
  // The continuation goes on inside the stopped reply: one reply, drawn from its two parts.
  await expect(stopped).toHaveAttribute('data-parts', '2')
  await expect.poll(async () => (await stopped.textContent())!.length).toBeGreaterThan(before + 20)
  await expect(page.getByTestId('message-assistant')).toHaveCount(replies)
  await page.keyboard.press('Escape')
  await expect(stopped).toHaveAttribute('data-status', 'interrupted')
  // One Continue on the page: the continuation's, at the end of the joined reply.
  await expect(page.getByTestId('continue')).toHaveCount(1)
  await expect(page.getByTestId('interrupted')).toHaveCount(1)
})

test('the header chip names provider and model; the picker is a listbox with arrow keys and says "No model matches"', async ({ page }) => {
  await newConversation(page)
  await expect(page.getByTestId('model-chip-provider')).toHaveText('OpenAI')
  await expect(page.getByTestId('model-chip-model')).not.toHaveText('gpt-4o-mini')
  const counter = page.getByTestId('token-estimate')
  await expect(counter).toContainText(' of ')
  await page.getByTestId('model-picker').click()
  const search = page.getByTestId('model-search')
  await expect(search).toHaveAttribute('role', 'combobox')
  await expect(page.getByTestId('model-listbox')).toHaveAttribute('role', 'listbox')
  await search.fill('gpt-4o')
  const options = page.getByTestId('model-listbox').getByRole('option')
  expect(await options.count()).toBeGreaterThan(1)
  await expect(options.first()).toHaveAttribute('aria-selected', 'true')
  await search.press('ArrowDown')
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true')
  await expect(search).toHaveAttribute('aria-activedescendant', (await options.nth(1).getAttribute('id'))!)
  await search.press('ArrowUp')
  await expect(options.first()).toHaveAttribute('aria-selected', 'true')
  const firstId = await options.first().getAttribute('data-testid')
  await search.press('Enter')
  await expect(page.getByTestId('model-listbox')).toHaveCount(0)
  const [, provider] = /^pick-([^-]+)-/.exec(firstId!)!
  expect(provider).toBeTruthy()
  await page.getByTestId('model-picker').click()
  await page.getByTestId('model-search').fill('no-such-model-anywhere')
  await expect(page.getByTestId('model-picker-empty')).toHaveText('No model matches “no-such-model-anywhere”.')
  await page.keyboard.press('Escape')
  await pickMini(page)

  // The counter has one form from the first paint on: no "≈N tokens" before "≈N of M tokens".
  await page.addInitScript(() => {
    const forms: string[] = []
    ;(window as unknown as { counterForms: string[] }).counterForms = forms
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="token-estimate"]')?.textContent ?? ''
      const form = text.includes(' of ') ? 'of' : /tokens/.test(text) ? 'plain' : 'none'
      if (forms[forms.length - 1] !== form) forms.push(form)
    }).observe(document, { subtree: true, childList: true, characterData: true })
  })
  await page.reload()
  await expect(counter).toContainText(' of ')
  await page.getByTestId('model-picker').click()
  await page.keyboard.press('Escape')
  await expect(counter).toContainText(' of ')
  const forms = await page.evaluate(() => (window as unknown as { counterForms: string[] }).counterForms.filter((f) => f !== 'none'))
  expect(forms).toEqual(['of'])
})

test('a reply that ends while the page reloads is shown ended, not stuck as streaming', async ({ page }) => {
  test.setTimeout(90_000)
  await newConversation(page)
  await send(page, 'slow please')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('word3')
  // After the reload the page reads the conversation (the reply still streaming), then asks which
  // replies still run. That question is held back until the reply has ended in the core, so the
  // answer no longer lists it: the page must still come to show it ended.
  let hold = true
  setTimeout(() => (hold = false), 12_000)
  await page.routeWebSocket(/.*/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((message) => {
      const send = () => server.send(message)
      if (hold && String(message).includes('"tasks.active"')) {
        const wait = setInterval(() => {
          if (hold) return
          clearInterval(wait)
          send()
        }, 100)
      } else send()
    })
    server.onMessage((message) => ws.send(message))
  })
  await page.reload()
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'streaming')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete', { timeout: 40_000 })
  await expect(page.getByTestId('message-assistant').last()).toContainText('word149')
})

test('a reply cut by a dropped connection says so; Continue joins it in one text, sent and copied whole, and no Continue is left behind', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await newConversation(page)
  // Cut in the middle of a word: "resp" … "onse".
  fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['The partial ', 'resp', 'never']), truncateAfter: 3 })
  await send(page, 'cut me off')
  const cut = page.getByTestId('message-assistant').last()
  await expect(cut).toHaveAttribute('data-status', 'interrupted')
  await expect(cut).toContainText('The partial resp')
  const note = cut.getByTestId('interrupted')
  await expect(note).toHaveAttribute('data-reason', 'connection')
  await expect(note).toContainText('The connection dropped before this reply finished')
  await expect(cut.getByTestId('error-card')).toHaveCount(0)
  fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['onse, ', 'now whole.']), delayMs: 30 })
  const asked = fake.requestsTo('/chat/completions').length
  await note.getByTestId('continue').click()
  // One reply, one text: the continuation goes on inside the stopped reply's paragraph.
  const joined = page.getByTestId('message-assistant').last()
  await expect(joined).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(joined.locator('p')).toHaveText(['The partial response, now whole.'])
  await expect(joined).toHaveAttribute('data-parts', '2')
  await expect(page.getByTestId('message-assistant')).toHaveCount(2)
  await expect(joined.getByTestId('message-model')).toHaveCount(1)
  await expect(page.getByTestId('continue')).toHaveCount(0)
  await expect(page.getByTestId('interrupted')).toHaveCount(0)
  // The model was asked to go on from what it wrote, as one assistant turn.
  const sent = (fake.requestsTo('/chat/completions')[asked]!.body as { messages: { role: string; content: string }[] }).messages
  expect(sent.slice(-2)).toEqual([
    { role: 'assistant', content: 'The partial resp' },
    { role: 'user', content: expect.stringMatching(/^Continue your previous answer/) }
  ])
  // Copy copies the reply as it reads.
  await joined.hover()
  await joined.getByTestId('op-copy').click()
  await expect(joined.getByTestId('op-copy')).toContainText('Copied')
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('The partial response, now whole.')
  // Still one text after a reload (drawn from the stored parts).
  await page.reload()
  await expect(page.getByTestId('message-assistant')).toHaveCount(2)
  await expect(page.getByTestId('message-assistant').last().locator('p')).toHaveText(['The partial response, now whole.'])
})

test('the API-key dialog from a chat error shows the address already configured', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, 'sk-e2e-wrong-0123456789')
  fake.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody('Incorrect API key provided', 'invalid_api_key') })
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickMini(page)
  await send(page, 'key check')
  await page.getByTestId('error-card').getByTestId('error-action').click()
  await expect(page.getByTestId('api-key-proxy')).toHaveValue(fake.url)
  await page.getByTestId('api-key-input').fill(KEY)
  await page.getByTestId('api-key-confirm').click()
  await expect(page.getByTestId('message-assistant').last()).toContainText('You said: key check.')
})

// ---- a server of this test's own, to kill and start again


test('what is typed survives a reload and a lost connection: sent while the core is down, it goes out when it is back', async ({ browser }) => {
  test.setTimeout(120_000)
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-polish-'))
  const port = await freePort()
  let server = await startServer(port, dataDir)
  const { context, page } = await ownServerPage(browser, port, { width: 1024, height: 700 })
  try {
    await newConversation(page)
    // A draft is kept per conversation across a reload.
    await page.getByTestId('composer-input').fill('a draft I am still writing')
    await page.reload()
    await expect(page.getByTestId('composer-input')).toHaveValue('a draft I am still writing')
    // The draft comes from the page itself; the conversation and its model from the core: the core
    // goes away only once the page has them (on a loaded machine it went while they were still on
    // their way, and the composer, with no model, stayed disabled).
    await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
    await expect(page.getByTestId('composer-input')).toBeEnabled()

    // The core goes away.
    await stopServer(server)
    await expect(page.getByTestId('reconnecting-banner')).toBeVisible()
    // The banner pushes the page down without covering its header; the composer stays on screen.
    const banner = (await page.getByTestId('reconnecting-banner').boundingBox())!
    const header = (await page.getByTestId('page-chat').locator('header').first().boundingBox())!
    expect(banner.y + banner.height).toBeLessThanOrEqual(header.y + 0.5)
    const input = page.getByTestId('composer-input')
    await expect(input).toBeInViewport({ ratio: 1 })
    const box = (await page.getByTestId('send').boundingBox())!
    expect(box.y + box.height).toBeLessThanOrEqual(700)
    await expect(input).toHaveValue('a draft I am still writing')
    await expect(page.getByTestId('offline-hint')).toBeVisible()

    // Sent while down: kept, with a clear state, and cancellable (the text comes back).
    await input.fill('sent while offline')
    await input.press('Enter')
    const queued = page.getByTestId('queued-message')
    await expect(queued).toHaveCount(1)
    await expect(queued).toContainText('sent while offline')
    await expect(queued).toContainText('Will send when reconnected')
    await expect(input).toHaveValue('')
    await input.fill('second thought')
    await input.press('Enter')
    await expect(queued).toHaveCount(2)
    await queued.nth(1).getByTestId('cancel-queued').click()
    await expect(queued).toHaveCount(1)
    await expect(input).toHaveValue('second thought')
    await input.fill('and one more')
    await input.press('Enter')
    await expect(queued).toHaveCount(2)
    await snap(page, 'chat-queued-offline')

    // The core comes back on the same data: both go out, in order, each answered.
    server = await startServer(port, dataDir)
    await expect(page.getByTestId('reconnecting-banner')).toHaveCount(0, { timeout: 20_000 })
    await expect(queued).toHaveCount(0, { timeout: 20_000 })
    await expect(page.getByTestId('message-assistant').filter({ hasText: 'You said: sent while offline.' })).toHaveCount(1)
    await expect(page.getByTestId('message-assistant').last()).toContainText('You said: and one more.')
    const users = () => page.getByTestId('message-user').getByTestId('message-text').allInnerTexts()
    expect((await users()).slice(-2)).toEqual(['sent while offline', 'and one more'])
    // The second answered the first's reply: one path, no branches.
    await expect(page.getByTestId('branch-switch')).toHaveCount(0)
    await page.reload()
    await expect(page.getByTestId('message-assistant').last()).toContainText('You said: and one more.')
    expect((await users()).slice(-2)).toEqual(['sent while offline', 'and one more'])
  } finally {
    await context.close()
    await stopServer(server).catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  }
})

const wordsOf = async (reply: Locator) => (await reply.innerText()).match(/word\d+/g) ?? []

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`a server restarted mid-reply (${signal}): the page re-reads the reply as interrupted with its saved text and Continue, and can send again`, async ({ browser }) => {
    test.setTimeout(120_000)
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-polish-'))
    const port = await freePort()
    let server = await startServer(port, dataDir)
    const { context, page } = await ownServerPage(browser, port, { width: 1024, height: 700 })
    try {
      await newConversation(page)
      await send(page, 'slow please')
      const reply = page.getByTestId('message-assistant').last()
      await expect(reply).toContainText('word8')
      await stopServer(server, signal)
      await expect(page.getByTestId('reconnecting-banner')).toBeVisible()
      const shown = await wordsOf(reply)
      server = await startServer(port, dataDir)
      await expect(page.getByTestId('reconnecting-banner')).toHaveCount(0, { timeout: 20_000 })
      // Re-read from the core: interrupted, with Continue; no Stop left, no "reload" error.
      await expect(reply).toHaveAttribute('data-status', 'interrupted', { timeout: 20_000 })
      await expect(reply.getByTestId('interrupted').getByTestId('continue')).toBeVisible()
      // The server stopping is not the user stopping it.
      await expect(reply.getByTestId('interrupted')).not.toHaveAttribute('data-reason', 'stopped')
      await expect(page.getByTestId('stop')).toHaveCount(0)
      await expect(page.getByTestId('error-card')).toHaveCount(0)
      const afterReconnect = await wordsOf(reply)
      // A clean stop saves everything streamed so far; a kill keeps what was flushed. Either
      // way the page shows what was saved: a reload shows the same text.
      if (signal === 'SIGTERM') expect(afterReconnect.slice(0, shown.length)).toEqual(shown)
      // Nothing waits for a reload: the next message goes out and is answered.
      await send(page, 'after the restart')
      await expect(page.getByTestId('message-assistant').last()).toContainText('You said: after the restart.')
      await page.reload()
      const saved = page.getByTestId('message-assistant').nth(1)
      await expect(saved).toHaveAttribute('data-status', 'interrupted')
      expect(await wordsOf(saved)).toEqual(afterReconnect)
    } finally {
      await context.close()
      await stopServer(server).catch(() => undefined)
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
}

test('stored defaults follow the language: the default agent and an untitled chat are shown in Chinese, the reasoning time kept', async ({ browser }) => {
  // A data folder of its own: other specs rename the shared one's default agent.
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-polish-'))
  const port = await freePort()
  const server = await startServer(port, dataDir)
  const { context, page } = await ownServerPage(browser, port, { width: 1024, height: 700 })
  titles = false
  try {
    // A new user's way to a key: the link lands on Settings → Providers, scrolled to and highlighted.
    await openApp(page, '#/chat')
    await page.getByTestId('chat-add-key').click()
    await expect(page).toHaveURL(/#\/settings\/providers$/)
    await expect(page.getByTestId('providers-section')).toBeInViewport()
    await expect(page.getByTestId('providers-section')).toHaveAttribute('data-highlighted', 'true')
    await newConversation(page, 'think first, no title')
    // The title model failed: the chat is named after the first words of its first message.
    await expect(page.getByTestId('conversation-title')).toHaveText('think first, no title')
    await expect(page.getByTestId('reasoning').locator('summary')).toHaveText(/^Reasoned for \d+\.\d s$/)
    await expect(page.getByTestId('open-agent-settings')).toHaveText('Just Chat')
    await page.evaluate(() => localStorage.setItem('switchboard.language', 'zh-CN'))
    await page.reload()
    await expect(page.getByTestId('conversation-title')).toHaveText('think first, no title')
    await expect(page.getByTestId('open-agent-settings')).toHaveText('随便聊聊')
    // After a reload the reasoning time comes from the stored reply, in Chinese too.
    await expect(page.getByTestId('reasoning').locator('summary')).toHaveText(/^已推理 \d+\.\d 秒$/)
    // A chat still without a title is shown under the default name in the user's language.
    await page.getByTestId('new-chat').click()
    await expect(page.getByTestId('conversation-title')).toHaveText('新对话')
    await snap(page, 'chat-zh-CN')
  } finally {
    titles = true
    await context.close()
    await stopServer(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
})
