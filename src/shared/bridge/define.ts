import type { z } from 'zod'

/** A request → result procedure. `O` is the result type. */
export interface CallDef<I extends z.ZodType = z.ZodType, O = unknown> {
  readonly kind: 'call'
  readonly input: I
  readonly __output?: O
}

/** A request → events procedure owned by the core; `E` is one event, `R` the final result. */
export interface StreamDef<I extends z.ZodType = z.ZodType, E = unknown, R = unknown> {
  readonly kind: 'stream'
  readonly input: I
  readonly __event?: E
  readonly __result?: R
}

export type ProcedureDef = CallDef | StreamDef
export type ContractShape = Record<string, ProcedureDef>

/** `call<Output>()(inputSchema)`: curried so the output type is explicit and the input inferred. */
export const call =
  <O>() =>
  <I extends z.ZodType>(input: I): CallDef<I, O> => ({ kind: 'call', input })

/** `stream<Event, Result>()(inputSchema)`. */
export const stream =
  <E, R = void>() =>
  <I extends z.ZodType>(input: I): StreamDef<I, E, R> => ({ kind: 'stream', input })

export type CallNames<C extends ContractShape> = { [K in keyof C]: C[K] extends CallDef ? K : never }[keyof C] & string
export type StreamNames<C extends ContractShape> = { [K in keyof C]: C[K] extends StreamDef ? K : never }[keyof C] &
  string

export type InputOf<D> = D extends CallDef<infer I, unknown> ? z.input<I> : D extends StreamDef<infer I, unknown, unknown> ? z.input<I> : never
export type ParsedInputOf<D> = D extends CallDef<infer I, unknown>
  ? z.output<I>
  : D extends StreamDef<infer I, unknown, unknown>
    ? z.output<I>
    : never
export type OutputOf<D> = D extends CallDef<z.ZodType, infer O> ? O : never
export type EventOf<D> = D extends StreamDef<z.ZodType, infer E, unknown> ? E : never
export type StreamResultOf<D> = D extends StreamDef<z.ZodType, unknown, infer R> ? R : never
