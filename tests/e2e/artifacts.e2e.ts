import { expect, test, type Page } from '@playwright/test'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, pickModel, PORT, snap } from './helpers'

// Issue 18 (artifacts): the real app in browser mode, a fake OpenAI server streaming artifact
// tags in small pieces (so the tag arrives cut mid-attribute), and the real sandbox runtime
// (its own build, served at /artifact-sandbox/ with the no-network policy).
const KEY = 'sk-e2e-artifacts-0123456789'
let fake: FakeOpenAI
let beacon: Server
let beaconHits: string[] = []
let beaconUrl = ''

const artifact = (identifier: string, type: string, title: string, content: string) => `<artifact identifier="${identifier}" type="${type}" title="${title}">\n${content}\n</artifact>`
/** The reply in pieces of 17 characters: tags, attributes and the closing tag all arrive split. */
const pieces = (text: string) => Array.from({ length: Math.ceil(text.length / 17) }, (_, i) => text.slice(i * 17, i * 17 + 17))

const page1 = (n: number) => `<!doctype html><html><body><h1 id="h">Hello v${n}</h1><script>document.getElementById('h').textContent += ' (scripted)'</script></body></html>`
const counter = `import { useState } from 'react'
export default function Counter() {
  const [count, setCount] = useState(0)
  return <button id="inc" onClick={() => setCount(count + 1)}>Count: {count}</button>
}`
const broken = `export default function Broken() {
  throw new Error('boom in the artifact')
}`
const python = `import math\nprint("hello from python", math.factorial(5))\nprint(sum(range(10)))`
// A chart drawn with the standard library and shown with display(): SVG text, then PNG bytes
// made by hand (zlib + struct); then matplotlib, which is not shipped.
const chart = `from switchboard import display
values = [3, 7, 5]
bars = ''.join(f'<rect x="{10 + i * 30}" y="{80 - v * 10}" width="20" height="{v * 10}" fill="#4f46e5"/>' for i, v in enumerate(values))
print("chart below")
display(f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="80" viewBox="0 0 100 80">{bars}</svg>', alt="bar chart")
print("a red square below")
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
raw = b"".join(b"\\x00" + b"\\xff\\x00\\x00" * 4 for _ in range(4))
display(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
print("now matplotlib")
import matplotlib`
const hostile = () => `<!doctype html><html><body><p id="p">hostile</p><script>
const hit = (what) => '${beaconUrl}/' + what
try { localStorage.setItem('hostile', '1') } catch (e) {}
try { document.cookie = 'hostile=1' } catch (e) {}
try { top.location = hit('top') } catch (e) {}
try { parent.location.href = hit('parent') } catch (e) {}
fetch(hit('fetch')).catch(() => {})
try { navigator.sendBeacon(hit('sendbeacon')) } catch (e) {}
new Image().src = hit('img')
const s = document.createElement('script'); s.src = hit('script'); document.body.append(s)
const f = document.createElement('iframe'); f.src = hit('iframe'); document.body.append(f)
try { window.open(hit('popup')) } catch (e) {}
setTimeout(() => { location.href = hit('self') }, 300)
</script></body></html>`
// Switches its own page to the network policy and reports from there.
const flip = () => `<!doctype html><html><body><p id="p">flip</p><script>
const u = new URL(location.href)
if (u.searchParams.get('net') !== '1') { u.searchParams.set('net', '1'); location.replace(u.toString()) }
else fetch('${beaconUrl}/flipped').catch(() => {})
</script></body></html>`
// It spins once the test has seen it (a click): Playwright reads a frame through the frame's own
// thread, and a loop started on a timer could begin before a loaded machine got to read it. The
// loop starts after the click's handler returns, so the click itself is answered.
const loop = `<!doctype html><html><body><p>looping</p><button onclick="setTimeout(() => { for (;;) {} }, 50)">spin</button></body></html>`

test.beforeAll(async () => {
  beacon = createServer((req, res) => {
    beaconHits.push(req.url ?? '')
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }).end('hit')
  })
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve))
  beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Artifacts']) }
    const last = String(body.messages.at(-1)?.content ?? '')
    const reply = (text: string) => ({ kind: 'sse' as const, chunks: chatChunks(pieces(text)), delayMs: 15 })
    if (last.includes('html v1')) return reply(`Here is a page.\n\n${artifact('greeting', 'html', 'Greeting', page1(1))}\n\nEnjoy.`)
    if (last.includes('html v2')) return reply(`Updated.\n\n${artifact('greeting', 'html', 'Greeting', page1(2))}`)
    if (last.includes('counter')) return reply(`A counter:\n\n${artifact('counter', 'react', 'Counter', counter)}`)
    if (last.includes('broken')) return reply(artifact('broken', 'react', 'Broken', broken))
    if (last.includes('chart')) return reply(`A chart:\n\n${artifact('chart', 'python', 'Chart', chart)}`)
    if (last.includes('py ticks')) return reply(`Ticking:\n\n${artifact('ticks', 'python', 'Ticks', 'n = 0\nwhile True:\n    n += 1\n    if n % 200000 == 0:\n        print("tick", flush=True)')}`)
    if (last.includes('py spin')) return reply(`Spinning:\n\n${artifact('spin', 'python', 'Spin', 'while True:\n    pass')}`)
    if (last.includes('python')) return reply(`A script:\n\n${artifact('script', 'python', 'Script', python)}`)
    if (last.includes('hostile')) return reply(artifact('hostile', 'html', 'Hostile', hostile()))
    if (last.includes('flip')) return reply(artifact('flip', 'html', 'Flip', flip()))
    if (last.includes('loop')) return reply(artifact('loop', 'html', 'Loop', loop))
    return reply('Nothing to build.')
  })
})

test.afterAll(async () => {
  await fake.close()
  await new Promise((resolve) => beacon.close(resolve))
})

/** Only the app's own server: anything else fails, as on a machine without a network. */
async function offline(page: Page) {
  await page.context().route('**/*', (route) => {
    const url = new URL(route.request().url())
    // The app, and its artifact runtime under the other loopback name.
    return (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && url.port === String(PORT) ? route.continue() : route.abort('internetdisconnected')
  })
}

async function start(page: Page) {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 })
}

const frame = (page: Page) => page.frameLocator('[data-testid="artifact-frame"]')

test('the agent setting asks for artifacts; an HTML artifact streams into the panel and a second version switches and diffs', async ({ page }) => {
  await start(page)
  await page.getByTestId('open-agent-settings').click()
  await page.getByTestId('agent-artifacts').check()
  await page.getByTestId('agent-save').click()
  // The dialog closes once the core has the setting; until then it holds the keyboard. (Sent while
  // it was still open, on a loaded machine, the first message was never sent: reproduced by holding
  // the core's answer to the save for 2 s.)
  await expect(page.getByTestId('agent-settings')).toHaveCount(0)

  await send(page, 'html v1')
  const asked = fake.requestsTo('/chat/completions').map((r) => (r.body as { messages: { role: string; content: string }[] }).messages)
  const system = asked.find((m) => String(m.at(-1)?.content).includes('html v1'))![0]!
  expect(system.role).toBe('system')
  expect(system.content).toContain('<artifact identifier=')

  // The tag is a card in the reply, not text; the panel opened by itself and runs the page's script.
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('Here is a page.')
  await expect(reply).toContainText('Enjoy.')
  await expect(reply).not.toContainText('<artifact')
  await expect(reply.getByTestId('artifact-card')).toContainText('Greeting')
  await expect(page.getByTestId('artifact-panel')).toBeVisible()
  await expect(frame(page).locator('#h')).toHaveText('Hello v1 (scripted)', { timeout: 15_000 })

  await send(page, 'html v2')
  await expect(frame(page).locator('#h')).toHaveText('Hello v2 (scripted)', { timeout: 15_000 })
  await expect(page.getByTestId('artifact-version')).toHaveText('Version 2 of 2')
  await page.getByTestId('artifact-tab-diff').click()
  await expect(page.getByTestId('artifact-diff').locator('[data-diff="added"]')).toContainText('Hello v2')
  await expect(page.getByTestId('artifact-diff').locator('[data-diff="removed"]')).toContainText('Hello v1')
  // Long lines wrap in the Changes view: nothing to scroll sideways to read a change.
  expect(await page.getByTestId('artifact-diff').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
  // With the panel open the composer is narrow; its placeholder wraps instead of being clipped.
  const composer = page.getByTestId('composer-input')
  await expect(composer).toHaveValue('')
  expect(await composer.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true)
  await page.getByTestId('artifact-prev').click()
  await expect(page.getByTestId('artifact-version')).toHaveText('Version 1 of 2')
  await page.getByTestId('artifact-tab-preview').click()
  await expect(frame(page).locator('#h')).toHaveText('Hello v1 (scripted)', { timeout: 15_000 })
  await page.getByTestId('artifact-tab-code').click()
  await expect(page.getByTestId('artifact-code')).toContainText('Hello v1')

  // Download with the right extension; open in a tab of its own, still sandboxed (opaque origin).
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('artifact-download').click()])
  expect(download.suggestedFilename()).toBe('Greeting.html')
  const [tab] = await Promise.all([page.context().waitForEvent('page'), page.getByTestId('artifact-open-tab').click()])
  await expect(tab.locator('#h')).toHaveText('Hello v1 (scripted)', { timeout: 15_000 })
  expect(await tab.evaluate(() => origin)).toBe('null')
  expect(await tab.evaluate(() => { try { return localStorage.length } catch { return 'refused' } })).toBe('refused')
  await tab.close()

  // Collapsible, and the card of the first reply opens it again.
  await page.getByTestId('artifact-collapse').click()
  await expect(page.getByTestId('artifact-panel')).toHaveAttribute('data-collapsed', 'true')
  await page.getByTestId('artifact-expand').click()
  await page.getByTestId('artifact-close').click()
  await expect(page.getByTestId('artifact-panel')).toHaveCount(0)
  await page.getByTestId('artifact-card').first().click()
  await expect(page.getByTestId('artifact-panel')).toBeVisible()
})

test('a React counter artifact works offline: compiled in the sandbox, React from the app itself', async ({ page }) => {
  await offline(page)
  await start(page)
  await send(page, 'a counter please')
  const button = frame(page).locator('#inc')
  await expect(button).toHaveText('Count: 0', { timeout: 20_000 })
  await button.click()
  await button.click()
  await expect(button).toHaveText('Count: 2')

  // An artifact that throws: the error shows, and "ask the model to fix" sends it back as a message.
  await send(page, 'a broken one')
  await expect(page.getByTestId('artifact-error')).toContainText('boom in the artifact', { timeout: 20_000 })
  await page.getByTestId('artifact-fix').click()
  await expect
    .poll(() => fake.requestsTo('/chat/completions').map((r) => String((r.body as { messages: { content: string }[] }).messages.at(-1)?.content)).find((c) => c.includes('failed with this error')))
    .toContain('boom in the artifact')
  await expect(page.getByTestId('message-user').last()).toContainText('boom in the artifact')
})

test('a Python artifact prints its output (Pyodide from the app, offline)', async ({ page }) => {
  test.setTimeout(120_000)
  await offline(page)
  await start(page)
  await send(page, 'python please')
  await expect(frame(page).locator('[data-python-output]')).toContainText('hello from python 120', { timeout: 90_000 })
  await expect(frame(page).locator('[data-python-output]')).toContainText('45')
  await expect(frame(page).locator('[data-python-status]')).toHaveAttribute('data-python-status', 'done')
})

test('a Python artifact shows images with display(), in order with its text; matplotlib says it is not available offline', async ({ page }) => {
  test.setTimeout(120_000)
  await offline(page)
  await start(page)
  await send(page, 'chart please')
  const output = frame(page).locator('[data-python-output]')
  await expect(frame(page).locator('[data-python-status]')).toHaveAttribute('data-python-status', 'error', { timeout: 90_000 })
  // The SVG chart and the PNG square are images among the lines, where the program showed them.
  const parts = await output.evaluate((el) => Array.from(el.childNodes).map((n) => (n instanceof HTMLImageElement ? `img ${n.dataset.pythonImage}` : (n.textContent ?? '').trim())))
  expect(parts.filter(Boolean).slice(0, 5)).toEqual(['chart below', 'img image/svg+xml', 'a red square below', 'img image/png', 'now matplotlib'])
  const images = output.locator('img[data-python-image]')
  await expect(images).toHaveCount(2)
  await expect(images.first()).toHaveAttribute('alt', 'bar chart')
  await expect(images.first()).toHaveAttribute('src', /^blob:/)
  await expect(images.nth(1)).toHaveAttribute('src', /^data:image\/png;base64,/)
  // Both were loaded under the sandbox's policy (img-src data: blob:), at their own sizes.
  await expect.poll(() => images.evaluateAll((list) => list.map((img) => (img as HTMLImageElement).naturalWidth))).toEqual([100, 4])
  await expect(output).toContainText('"matplotlib" is not available offline')
  await expect(output).toContainText('display()')
  await expect(page.getByTestId('artifact-error')).toContainText('not available offline', { timeout: 20_000 })
  await snap(page, 'artifact-python-display')
})

test('a hostile artifact reaches neither the network nor the app, and a looping one is stopped while the app stays responsive', async ({ page }) => {
  test.setTimeout(90_000)
  beaconHits = []
  await start(page)
  await send(page, 'hostile')
  const appUrl = page.url()
  // The page ran (its title is set from inside), then every attempt had time to land (the
  // self-navigation fires after 300 ms; the parent's frame-src refuses it).
  await expect(page.getByTestId('artifact-frame')).toBeAttached({ timeout: 15_000 })
  await page.waitForTimeout(3000)
  expect(beaconHits).toEqual([])
  expect(page.url()).toBe(appUrl)
  expect(await page.evaluate(() => localStorage.getItem('hostile'))).toBeNull()
  expect(await page.evaluate(() => document.cookie)).not.toContain('hostile')
  expect(page.context().pages()).toHaveLength(1)

  // An endless loop: the app's own timers keep running while it spins, a button still works,
  // and the heartbeat stops the artifact with a notice.
  await page.evaluate(() => {
    const w = window as unknown as { ticks: number }
    w.ticks = 0
    setInterval(() => w.ticks++, 100)
  })
  await send(page, 'loop')
  await expect(frame(page).locator('p')).toHaveText('looping', { timeout: 15_000 })
  // Chromium puts the sandboxed frame in a process of its own (an out-of-process iframe is a
  // target of type "iframe"); that is what keeps the app's thread free. Looked at before the
  // loop starts: on a loaded machine the heartbeat can stop a spinning frame before CDP answers.
  const cdp = await page.context().browser()!.newBrowserCDPSession()
  const sandboxTargets = async () => ((await cdp.send('Target.getTargets')).targetInfos as { type: string; url: string }[]).filter((t) => t.url.includes('/artifact-sandbox/'))
  expect((await sandboxTargets()).map((t) => t.type)).toEqual(['iframe'])
  await frame(page).getByRole('button', { name: 'spin' }).click()
  const before = await page.evaluate(() => (window as unknown as { ticks: number }).ticks)
  await page.waitForTimeout(1500)
  await page.getByTestId('open-agent-settings').click()
  await expect(page.getByTestId('agent-settings')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('agent-settings')).toHaveCount(0)
  expect(await page.evaluate(() => (window as unknown as { ticks: number }).ticks)).toBeGreaterThan(before + 8)
  await expect(page.getByTestId('artifact-stopped')).toContainText('Stopped: not responding', { timeout: 15_000 })
  await expect(page.getByTestId('artifact-frame')).toHaveCount(0)
  // The frame, and with it the looping process, is gone.
  await expect.poll(sandboxTargets, { timeout: 10_000 }).toEqual([])
  // …and no renderer process keeps spinning (a live loop would add ~2 s of CPU in 2 s).
  const rendererCpu = async () =>
    ((await cdp.send('SystemInfo.getProcessInfo')).processInfo as { type: string; cpuTime: number }[]).filter((p) => p.type === 'renderer').reduce((n, p) => n + p.cpuTime, 0)
  const cpuBefore = await rendererCpu()
  await page.waitForTimeout(2000)
  expect(await rendererCpu()).toBeLessThan(cpuBefore + 1)
  expect(beaconHits).toEqual([])
})

test('an artifact cannot switch its own network policy on: the network stays the user’s choice per artifact', async ({ page }) => {
  test.setTimeout(60_000)
  beaconHits = []
  await start(page)
  await send(page, 'flip')
  // It loads its page again with net=1; the app does not send its code to a page it did not load.
  await expect(page.getByTestId('artifact-frame').or(page.getByTestId('artifact-reloaded'))).toBeAttached({ timeout: 15_000 })
  await page.waitForTimeout(4000)
  expect(beaconHits).toEqual([])
  await expect(page.getByTestId('artifact-reloaded')).toBeVisible()

  // Allowed by the user, the same artifact reaches the network from the page the app loaded.
  await page.getByTestId('artifact-network').check()
  await expect.poll(() => beaconHits, { timeout: 15_000 }).toEqual(['/flipped'])
  await expect(page.getByTestId('artifact-reloaded')).toHaveCount(0)
})

test('a Python artifact can be stopped, and one that loops silently is stopped as not responding', async ({ page }) => {
  test.setTimeout(240_000)
  await start(page)
  await send(page, 'py ticks')
  const status = frame(page).locator('[data-python-status]')
  await expect(status).toHaveAttribute('data-python-status', 'running', { timeout: 120_000 })
  await expect(frame(page).locator('[data-python-output]')).toContainText('tick', { timeout: 30_000 })
  await frame(page).locator('[data-python-stop]').click()
  await expect(status).toHaveAttribute('data-python-status', 'stopped')
  await expect(frame(page).locator('[data-python-stop]')).toHaveCount(0)
  await expect(frame(page).locator('[data-python-output]')).toContainText('tick')

  await send(page, 'py spin')
  await expect(status).toHaveAttribute('data-python-status', 'running', { timeout: 120_000 })
  await expect(status).toHaveAttribute('data-python-status', 'not-responding', { timeout: 30_000 })
  await expect(frame(page).locator('[data-python-output]')).toContainText('may loop forever')
})
