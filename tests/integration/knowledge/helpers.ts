import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { MemoryBackend } from '../../../src/core/secrets'
import { ok, readyTestCore, type TestCore as SharedTestCore } from '../test-core'

export { ok }

/** A core of these tests: the shared shape without its own `close` (these tests close the core themselves). */
export type TestCore = Omit<SharedTestCore, 'close' | 'state' | 'reopen'>

/** A real core on a temporary data folder, with OpenAI pointed at the fake embedding server. */
export async function startCore(embeddingsUrl: string, dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-'))): Promise<TestCore> {
  const { core, client } = await readyTestCore('sb-kb-', { dataDir, secrets: { backend: new MemoryBackend() } })
  ok(await client.call('providers.update', { providerId: 'openai', baseURL: embeddingsUrl }))
  ok(await client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-kb-test-0123456789abcdef' }))
  return { core, client, dataDir }
}

/** Writes files under a new temporary folder: { 'a/b.md': 'text' }. */
export function writeTree(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'sb-kb-src-'))
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), { recursive: true })
    writeFileSync(full, content)
  }
  return root
}

/** Twelve short documents, each about one thing, so a question has one right file. */
export const TOPICS: Record<string, string> = {
  'garden/tomatoes.md': '# Tomatoes\n\nTomatoes need full sun and deep watering twice a week. Stake the vines when they reach knee height.',
  'garden/roses.md': '# Roses\n\nPrune roses in late winter, just above an outward-facing bud. Feed them after the first flush of blooms.',
  'kitchen/bread.md': '# Sourdough bread\n\nFeed the starter the night before. Bake the loaf at 250 degrees in a covered dutch oven for twenty minutes.',
  'kitchen/curry.txt': 'The green curry paste uses lemongrass, galangal, green chillies and kaffir lime leaves pounded in a mortar.',
  'travel/kyoto.md': '# Kyoto\n\nThe Fushimi Inari shrine has thousands of vermilion torii gates. Visit at dawn to avoid the crowds.',
  'travel/lisbon.md': '# Lisbon\n\nTram 28 climbs through Alfama. The custard tarts of Belém are best eaten warm with cinnamon.',
  'code/retry.ts': 'export async function retry(fn: () => Promise<void>) {\n  // exponential backoff with jitter\n  for (let attempt = 0; attempt < 5; attempt++) {\n    try { return await fn() } catch { await sleep(2 ** attempt * 100) }\n  }\n}\n',
  'notes/wifi.txt': 'The office wifi password is periwinkle-giraffe-42 and the guest network is called Lobby.',
  'notes/parking.md': '# Parking\n\nVisitor parking is on level minus two; validate the ticket at reception.',
  'pets/cats.md': '# Cats\n\nCats sleep up to sixteen hours a day and purr at a frequency between 25 and 150 hertz.',
  'pets/dogs.md': '# Dogs\n\nA border collie needs two hours of exercise daily and loves herding games.',
  'space/mars.md': '# Mars\n\nOlympus Mons on Mars is the tallest volcano in the solar system, about 22 kilometres high.'
}
