import type { Contract } from '../shared/bridge/contract'
import type { Implementation } from './bridge/router'
import type { AccessPolicy } from './bridge/session'
import type { StreamHub } from './bridge/stream-hub'
import type { Unavailable } from './unavailable'

/** The desktop shell's file dialogs (Electron only): the chosen path, or undefined when cancelled. */
export interface FileDialog {
  choose(purpose: 'import' | 'export', suggestedName: string): Promise<string | undefined>
}

/** What a feature's handlers may read of the process they run in (never a service: those come through `use`). */
export interface FeatureEnv {
  version: string
  mode: 'desktop' | 'browser' | 'test'
  dataDir: string
  access?: AccessPolicy
  /** Set by the Electron shell; absent in browser mode, the CLI and tests that do not give one. */
  fileDialog?: FileDialog
}

/** The contract's procedures whose names start with `prefix.` (`ProceduresOf<'sync'>`). */
export type ProceduresOf<Prefix extends string> = Extract<keyof Contract, `${Prefix}.${string}`>

/** Handlers for these procedures of the contract. */
export type Handlers<P extends keyof Contract = keyof Contract> = Pick<Implementation<Contract>, P>

type Usable<T> = Exclude<T, Unavailable>

/**
 * How a feature's handlers reach a service: a getter that throws the truthful not-ready error
 * while start-up has not built it (or its reason, when it is unavailable). `what` names it in
 * that error ("Sync is still starting…").
 */
export type Use<Deps> = <K extends keyof Deps>(key: K, what: string) => () => Usable<Deps[K]>

/**
 * What a feature folder exports: how its services are built from the ones built before it, the
 * handlers of its procedures, and what start-up and shutdown do with it. The composition root
 * (root.ts) lists features in dependency order, one line each; the compiler refuses a feature
 * whose `Deps` the features before it do not provide.
 */
export interface Feature<Deps, Adds extends object, P extends keyof Contract = never> {
  /** Builds the feature's services; each gets what it needs in its constructor. */
  readonly create: (deps: Deps) => Adds
  /** The handlers of its procedures (`src/shared/bridge/procedures/<feature>.ts`). */
  readonly handlers?: (use: Use<Deps & Adds>, env: FeatureEnv, hub: StreamHub) => Handlers<P>
  /** Once the whole graph exists (features start in build order). */
  readonly start?: (adds: Adds) => void
  /** At shutdown, in reverse build order; `afterStreams` ones after the hub's streams ended (a tool server a reply is calling). */
  readonly close?: (adds: Adds) => void | Promise<void>
  readonly afterStreams?: boolean
}

// The plan erases each feature's own types once they are checked by `add`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFeature = Feature<any, any, any>

/**
 * The features in build order, typed by what they have built so far: `add` accepts a feature
 * only when everything it needs is already there, and adds what it builds. A plan may begin with
 * a standing stage: the features added before `opens` need only `Base`, are built when the core
 * is made and answer in every start-up state; those after it are built each time start-up has
 * opened what `opens` names (the store and the keychain).
 */
export class FeaturePlan<
  Base extends object,
  Built extends object = Base,
  P extends keyof Contract = never,
  Standing extends object = Base,
  Opened extends object = never
> {
  /** What `opens` named (never before it): typed only, so a second `opens` does not compile. */
  declare private readonly opened?: Opened

  private constructor(
    private readonly features: readonly AnyFeature[],
    /** How many of `features` form the standing stage. */
    private readonly standingCount: number
  ) {}

  static start<Base extends object>(): FeaturePlan<Base> {
    return new FeaturePlan<Base>([], 0)
  }

  add<Adds extends object, Q extends keyof Contract = never>(feature: Feature<Built, Adds, Q>): FeaturePlan<Base, Built & Adds, P | Q, Standing, Opened> {
    return new FeaturePlan<Base, Built & Adds, P | Q, Standing, Opened>([...this.features, feature], this.standingCount)
  }

  /** Ends the standing stage: the features added after this are built once start-up has opened `O`. */
  opens<O extends object>(this: FeaturePlan<Base, Built, P, Base, never>): FeaturePlan<Base, Built & O, P, Built, O> {
    return new FeaturePlan<Base, Built & O, P, Built, O>(this.features, this.features.length)
  }

  private get standingFeatures(): readonly AnyFeature[] {
    return this.features.slice(0, this.standingCount)
  }

  private get openedFeatures(): readonly AnyFeature[] {
    return this.features.slice(this.standingCount)
  }

  /** Builds the standing stage on top of `base`. */
  stand(base: Base): Standing {
    const built = { ...base } as Record<string, unknown>
    for (const feature of this.standingFeatures) Object.assign(built, feature.create(built))
    return built as Standing
  }

  /** Builds every feature after the standing stage, in order, on top of what stands and what start-up opened. */
  build(standing: Standing, opened: Opened): Built {
    const built = { ...standing, ...opened } as Record<string, unknown>
    for (const feature of this.openedFeatures) Object.assign(built, feature.create(built))
    return built as Built
  }

  /** Every feature's handlers, each reaching its services through `use`: together, the procedures the features declared. */
  handlers(use: Use<Built>, env: FeatureEnv, hub: StreamHub): Handlers<P> {
    const all = {}
    for (const feature of this.features) Object.assign(all, feature.handlers?.(use, env, hub))
    return all as Handlers<P>
  }

  /** Once the whole graph exists: every feature's `start`, in build order (the standing ones first). */
  start(built: Built): void {
    for (const feature of this.features) feature.start?.(built)
  }

  /**
   * Shutdown in reverse build order; the hub's streams end between the two passes. The standing
   * stage is not closed here (a retried start-up keeps it): `closeStanding` does, when the core ends.
   */
  async close(built: Built, endStreams: () => void): Promise<void> {
    const reversed = [...this.openedFeatures].reverse()
    for (const feature of reversed) if (!feature.afterStreams) await feature.close?.(built)
    endStreams()
    for (const feature of reversed) if (feature.afterStreams) await feature.close?.(built)
  }

  /** Closes the standing stage, in reverse build order (the core ends). */
  async closeStanding(standing: Standing): Promise<void> {
    for (const feature of [...this.standingFeatures].reverse()) await feature.close?.(standing)
  }
}
