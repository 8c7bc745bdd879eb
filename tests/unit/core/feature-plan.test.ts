import { describe, expect, it } from 'vitest'
import { FeaturePlan, type Feature } from '../../../src/core/feature'

// The root's plan (src/core/root.ts): a standing stage built once, without the store, then the
// features built each time start-up opened it. The order is checked by the compiler (the
// `@ts-expect-error` lines fail `tsc -b` if the plan ever accepts them) and the stages by running.
interface Base {
  env: { dataDir: string }
  log: string[]
}

/** A feature that says in `log` when it is built, started and closed. */
function logged<Deps extends { log: string[] }, Adds extends object>(name: string, adds: (deps: Deps) => Adds): Feature<Deps, Adds> {
  const say = (built: unknown, what: string) => void (built as { log: string[] }).log.push(`${what} ${name}`)
  return {
    create: (deps) => {
      deps.log.push(`create ${name}`)
      return adds(deps)
    },
    start: (built) => say(built, 'start'),
    close: (built) => say(built, 'close')
  }
}

const engine = logged('engine', () => ({ engine: 'engine' }))
const library = logged('library', ({ engine: e }: { engine: string; log: string[] }) => ({ library: `library on ${e}` }))
const providers = logged('providers', ({ store, engine: e }: { store: string; engine: string; log: string[] }) => ({ providers: `providers on ${store} and ${e}` }))
const chat = logged('chat', ({ providers: p }: { providers: string; log: string[] }) => ({ chat: `chat on ${p}` }))

const plan = FeaturePlan.start<Base>().add(engine).add(library).opens<{ store: string }>().add(providers).add(chat)

describe('the feature plan', () => {
  it('refuses, at compile time, a feature above what it needs, a standing feature that needs the store, and a second standing stage', () => {
    // @ts-expect-error chat needs providers, which no feature before it builds
    FeaturePlan.start<Base>().add(engine).opens<{ store: string }>().add(chat)
    // @ts-expect-error the standing stage has no store: it is built before start-up opens one
    FeaturePlan.start<Base>().add(engine).add(providers)
    // @ts-expect-error one standing stage per plan
    FeaturePlan.start<Base>().opens<{ store: string }>().opens<{ store: string }>()
    expect(plan).toBeInstanceOf(FeaturePlan)
  })

  it('builds the standing stage once and the rest on it each time the store opens; closes only the rest until the core ends', async () => {
    const log: string[] = []
    const standing = plan.stand({ env: { dataDir: '/d' }, log })
    expect(standing.library).toBe('library on engine')
    expect(log).toEqual(['create engine', 'create library'])

    const first = plan.build(standing, { store: 'store 1' })
    expect(first.chat).toBe('chat on providers on store 1 and engine')
    plan.start(first)
    await plan.close(first, () => log.push('streams end'))
    // A retried start-up: a new graph on the same standing stage.
    const second = plan.build(standing, { store: 'store 2' })
    expect(second.engine).toBe(standing.engine)
    await plan.closeStanding(standing)
    expect(log.slice(2)).toEqual([
      'create providers',
      'create chat',
      'start engine',
      'start library',
      'start providers',
      'start chat',
      'close chat',
      'close providers',
      'streams end',
      'create providers',
      'create chat',
      'close library',
      'close engine'
    ])
  })

  it('registers the handlers of every feature, standing ones included', () => {
    const withHandlers = (proc: string): Feature<{ log: string[] }, object, never> => ({ create: () => ({}), handlers: () => ({ [proc]: () => proc }) as never })
    const handlers = FeaturePlan.start<Base>().add(withHandlers('standing.x')).opens<{ store: string }>().add(withHandlers('opened.y')).handlers(() => () => undefined as never, { version: '', mode: 'test', dataDir: '' }, undefined as never)
    expect(Object.keys(handlers).sort()).toEqual(['opened.y', 'standing.x'])
  })
})
