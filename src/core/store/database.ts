import BetterSqlite3 from 'better-sqlite3'
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type InferResult
} from 'kysely'
import type { Database } from './schema'

export type SqliteDb = BetterSqlite3.Database

/** Opens a database file with the durability settings of DESIGN §4. */
export function openSqlite(file: string, options: { readonly?: boolean; fileMustExist?: boolean } = {}): SqliteDb {
  const sqlite = new BetterSqlite3(file, { readonly: options.readonly ?? false, fileMustExist: options.fileMustExist ?? false })
  if (!options.readonly) {
    sqlite.pragma('journal_mode = WAL')
    // FULL: a committed row survives a power cut, not only a crash of the process.
    sqlite.pragma('synchronous = FULL')
  }
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  return sqlite
}

/**
 * The store's one connection. Queries are built with kysely (typed by `Database`) and run
 * synchronously on better-sqlite3: one writer, no await between a read and its write, and
 * transactions that are plain functions (all or nothing, even on a throw).
 */
export class StoreDb {
  /** Builds queries only; run them with `all` / `first` / `run`. */
  readonly q: Kysely<Database>
  private readonly statements = new Map<string, BetterSqlite3.Statement>()

  constructor(readonly sqlite: SqliteDb) {
    this.q = new Kysely<Database>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler()
      }
    })
  }

  /** A cached prepared statement (queries repeat: the SQL text is the key). */
  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = this.sqlite.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }

  all<Q extends Compilable>(query: Q): InferResult<Q> {
    const compiled = query.compile()
    return this.prepare(compiled.sql).all(...(compiled.parameters as unknown[])) as InferResult<Q>
  }

  first<Q extends Compilable>(query: Q): InferResult<Q>[number] | undefined {
    const compiled = query.compile()
    return this.prepare(compiled.sql).get(...(compiled.parameters as unknown[])) as InferResult<Q>[number] | undefined
  }

  run(query: Compilable): number {
    const compiled = query.compile()
    return this.prepare(compiled.sql).run(...(compiled.parameters as unknown[])).changes
  }

  transaction<T>(fn: () => T): T {
    return this.sqlite.transaction(fn)()
  }

  close(): void {
    this.statements.clear()
    if (this.sqlite.open) this.sqlite.close()
  }
}
