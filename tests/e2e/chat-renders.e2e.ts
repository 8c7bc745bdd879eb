import { expect, test, type Page } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, pickModel } from './helpers'

// The chat page subscribes to the chat store with selectors: a reply streaming in another
// conversation (a store change every ~50 ms) must re-render nothing on the page in view.
// Renders are counted in the real built app through React's DevTools hook, which production
// React calls on every commit: the chat page's fiber is found by its root element
// (data-testid="page-chat") and counted when its hook state object is new (it rendered).
const KEY = 'sk-e2e-renders-0123456789'
const WORDS = 150
let fake: FakeOpenAI

declare global {
  interface Window {
    chatPageRenders: number
  }
}

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Render ', 'check']) }
    const last = String(body.messages.at(-1)?.content ?? '')
    if (last.includes('slow')) return { kind: 'sse', chunks: chatChunks(Array.from({ length: WORDS }, (_, i) => `word${i} `)), delayMs: 40 }
    return { kind: 'sse', chunks: chatChunks(['Quick answer.']) }
  })
})

test.afterAll(async () => fake.close())

async function countChatPageRenders(page: Page) {
  await page.addInitScript(() => {
    window.chatPageRenders = 0
    let last: unknown
    type Fiber = { type: unknown; child: Fiber | null; sibling: Fiber | null; memoizedState: unknown; memoizedProps: Record<string, unknown> | null }
    ;(window as unknown as Record<string, unknown>)['__REACT_DEVTOOLS_GLOBAL_HOOK__'] = {
      supportsFiber: true,
      renderers: new Map(),
      inject: () => 1,
      checkDCE: () => undefined,
      onScheduleFiberRoot: () => undefined,
      onCommitFiberUnmount: () => undefined,
      onPostCommitFiberRoot: () => undefined,
      onCommitFiberRoot(_id: number, root: { current: Fiber }) {
        const stack: Fiber[] = [root.current]
        while (stack.length > 0) {
          const fiber = stack.pop()!
          if (typeof fiber.type === 'function' && fiber.child?.memoizedProps?.['data-testid'] === 'page-chat') {
            if (fiber.memoizedState !== last) {
              last = fiber.memoizedState
              window.chatPageRenders++
            }
            return
          }
          if (fiber.sibling) stack.push(fiber.sibling)
          if (fiber.child) stack.push(fiber.child)
        }
      }
    }
  })
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

test('a reply streaming in another conversation re-renders nothing on the chat page in view', async ({ page }) => {
  await countChatPageRenders(page)
  // Stream events reaching this window (the bridge's socket frames carrying the slow reply's words).
  let wordFrames = 0
  page.on('websocket', (socket) => socket.on('framereceived', (frame) => void (String(frame.payload).includes('word') && wordFrames++)))
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')

  // Conversation B: a finished reply. Conversation A: a slow one, still streaming.
  await send(page, 'a quick one')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
  const quietId = new URL(page.url()).hash.split('/').pop()!
  await page.getByTestId('new-chat').click()
  await send(page, 'slow please')
  const streamingReply = page.getByTestId('message-assistant').last()
  await expect(streamingReply).toContainText('word2')
  const streamingId = new URL(page.url()).hash.split('/').pop()!
  expect(streamingId).not.toBe(quietId)

  // Sanity check of the counter: the page in view re-renders while its own reply streams.
  const before = await page.evaluate(() => window.chatPageRenders)
  await expect(streamingReply).toContainText('word30')
  expect(await page.evaluate(() => window.chatPageRenders)).toBeGreaterThan(before + 3)

  // Now look at B while A keeps streaming: once B has settled, nothing here renders again
  // while the socket keeps delivering A's words to this window's store.
  await page.locator(`a[href="#/chat/${quietId}"]`).click()
  await expect(page.getByTestId('message-assistant').last()).toContainText('Quick answer.')
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  const quietStart = await page.evaluate(() => window.chatPageRenders)
  const framesStart = wordFrames
  await expect.poll(() => wordFrames - framesStart, { timeout: 10_000 }).toBeGreaterThanOrEqual(20)
  expect(await page.evaluate(() => window.chatPageRenders)).toBe(quietStart)

  // A finished in the background and shows in full when opened again.
  await page.locator(`a[href="#/chat/${streamingId}"]`).click()
  await expect(page.getByTestId('message-assistant').last()).toContainText(`word${WORDS - 1}`, { timeout: 20_000 })
})
