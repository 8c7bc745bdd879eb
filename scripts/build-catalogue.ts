/**
 * Generates catalogue/ (one data file per provider, providers.json and the typed lazy index)
 * from the reference facts file. The generated files are committed; run this again when the
 * reference changes:  npx tsx scripts/build-catalogue.ts [path/to/catalogue-facts.json]
 *
 * Our format differs from the reference on purpose: every entry carries `enabled` and
 * `abilities` explicitly (so the loader never patches data), keys have a fixed order (so
 * diffs stay small), provider cards are flat (no nested settings) and carry a model count
 * (so the picker can show a provider without loading its list).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const source = process.argv[2] ?? join(root, 'catalogue', 'source', 'catalogue-facts.json')
const outDir = join(root, 'catalogue')

type Json = Record<string, unknown>
interface Facts {
  providers: Array<Json & { id: string; name: string; settings?: Json }>
  models: Record<string, Json[]>
}

const reference = JSON.parse(readFileSync(source, 'utf8')) as Facts
// Providers that are the app's own (the built-in engine), not the reference's: appended after them.
const own = JSON.parse(readFileSync(join(root, 'catalogue', 'source', 'own-providers.json'), 'utf8')) as Facts
// Provider settings of the app's own where the reference's differ (catalogue/source/README.md):
// Xinference lists its launched models like the other local servers, so it offers the fetch too.
const ownSettings = JSON.parse(readFileSync(join(root, 'catalogue', 'source', 'own-settings.json'), 'utf8')) as Record<string, Json>
const withOwnSettings = (p: Facts['providers'][number]) => (ownSettings[p.id] ? { ...p, settings: { ...p.settings, ...ownSettings[p.id] } } : p)
const facts: Facts = { providers: [...reference.providers.map(withOwnSettings), ...own.providers], models: { ...reference.models, ...own.models } }

// Field order of a model entry in our files; unknown fields keep their place after these.
const MODEL_KEYS = [
  'id', 'displayName', 'type', 'enabled', 'organization', 'family', 'generation', 'contextWindowTokens', 'maxOutput',
  'maxDimension', 'releasedAt', 'knowledgeCutoff', 'abilities', 'settings', 'config', 'pricing', 'parameters'
]

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Json)[k])]))
  }
  return value
}

function toModel(entry: Json): Json {
  const out: Json = {}
  const normalised: Json = { ...entry, enabled: entry['enabled'] === true, abilities: entry['abilities'] ?? {} }
  if (normalised['type'] === undefined) normalised['type'] = 'chat'
  for (const key of MODEL_KEYS) if (normalised[key] !== undefined) out[key] = key === 'id' ? normalised[key] : sortKeys(normalised[key])
  for (const key of Object.keys(normalised).sort()) {
    if (key === 'description') continue // descriptions are ours to write, never copied
    if (!(key in out) && normalised[key] !== undefined) out[key] = sortKeys(normalised[key])
  }
  return out
}

function toCard(p: Facts['providers'][number], models: Json[]): Json {
  const s = (p.settings ?? {}) as Json
  const proxy = s['proxyUrl'] as { placeholder?: string } | undefined
  const types: Record<string, number> = {}
  for (const m of models) types[m['type'] as string] = (types[m['type'] as string] ?? 0) + 1
  const card: Json = {
    id: p.id,
    name: p.name,
    url: p['url'],
    modelsUrl: p['modelsUrl'],
    apiKeyUrl: p['apiKeyUrl'],
    defaultBaseURL: p['defaultBaseURL'],
    sdkType: s['sdkType'],
    checkModel: p['checkModel'],
    proxyPlaceholder: proxy?.placeholder,
    showModelFetcher: s['showModelFetcher'] === true,
    supportResponsesApi: s['supportResponsesApi'] === true,
    disableBrowserRequest: s['disableBrowserRequest'] === true ? true : undefined,
    showApiKey: s['showApiKey'] === false ? false : undefined,
    modelCount: models.length,
    modelTypes: sortKeys(types)
  }
  return Object.fromEntries(Object.entries(card).filter(([, v]) => v !== undefined))
}

rmSync(join(outDir, 'models'), { recursive: true, force: true })
mkdirSync(join(outDir, 'models'), { recursive: true })

const ids = facts.providers.map((p) => p.id)
const cards: Json[] = []
for (const provider of facts.providers) {
  const models = (facts.models[provider.id] ?? []).map(toModel)
  // One model per line: compact to parse, and a changed model is a one-line diff.
  const body = models.map((m) => JSON.stringify(m)).join(',\n')
  writeFileSync(join(outDir, 'models', `${provider.id}.json`), `{"format":1,"providerId":${JSON.stringify(provider.id)},"models":[\n${body}\n]}\n`)
  cards.push(toCard(provider, models))
}
writeFileSync(join(outDir, 'providers.json'), `{"format":1,"providers":[\n${cards.map((c) => JSON.stringify(c)).join(',\n')}\n]}\n`)

const loaders = ids
  .map((id) => `  ${/^[a-z_$][a-z0-9_$]*$/i.test(id) ? id : JSON.stringify(id)}: () => import('./models/${id}.json', { with: { type: 'json' } }).then(asFile)`)
  .join(',\n')
const index = `// Generated by scripts/build-catalogue.ts — do not edit by hand.
import type { ProviderCard, ProviderCatalogueFile } from '../src/shared/catalogue/types'
import providersFile from './providers.json' with { type: 'json' }

/** Every provider id of the built-in catalogue, in catalogue order. */
export const CATALOGUE_PROVIDER_IDS = ${JSON.stringify(ids)} as const

export type CatalogueProviderId = (typeof CATALOGUE_PROVIDER_IDS)[number]

/** Provider cards: small, loaded eagerly (the picker lists providers before any model). */
export const providerCards = (providersFile as unknown as { providers: ProviderCard[] }).providers

const asFile = (mod: { default: unknown }) => mod.default as ProviderCatalogueFile

/**
 * One lazy loader per provider: a provider's list is parsed on first use only,
 * so start-up pays for nothing it does not show.
 */
export const catalogueLoaders: Record<CatalogueProviderId, () => Promise<ProviderCatalogueFile>> = {
${loaders}
}
`
writeFileSync(join(outDir, 'index.ts'), index)
console.log(`catalogue: ${ids.length} providers, ${cards.reduce((n, c) => n + (c['modelCount'] as number), 0)} models -> ${outDir}`)
