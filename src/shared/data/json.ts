/** A value that survives JSON and structured clone unchanged: what we store in JSON columns. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }
