import { parse, PGlite, protocol, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/** A statement PGlite has parsed and planned once, under a name, with what its answers need. */
interface Statement {
  name: string;
  paramTypes: number[];
  /** The statement's row description, or undefined when it returns no rows. */
  rows: BackendMessage | undefined;
}

/** How many named statements the engine keeps in PGlite; the least recently used is closed past it. */
const MAX_STATEMENTS = 256;
/** Statements seen once, waiting for their second use (forgotten all at once past this). */
const MAX_SEEN_ONCE = 1024;

const { serialize } = protocol;
const EXECUTE_AND_SYNC = concat([serialize.execute({}), serialize.sync()]);

/**
 * The engine's PGlite. Two things differ from PGlite's own `query`, neither what a query
 * answers:
 *
 * - **Parsers once.** drizzle's PGlite driver hands PGlite a table of its own result parsers
 *   with every query (date and time types, and arrays of them, stay text, as node-postgres
 *   gives them). PGlite merges that table into its ~350 parsers by copying them all, per
 *   query. The engine's PGlite leaves drizzle's table out, in and out of transactions, and
 *   holds the same parsers itself (set once it has started, by `keepAsText`).
 * - **Named statements.** PGlite's `query` parses and plans its text on every call, in six
 *   round trips into its WebAssembly (parse, describe the statement, bind, describe the
 *   portal, execute, sync). A text the engine runs a second time is parsed once under a name
 *   (with its parameter types and row description kept), and from then on runs as one round
 *   trip: bind, execute, sync (docs/decisions/named-statements-in-pglite.md). At most
 *   `MAX_STATEMENTS` are kept; the least recently used is closed. Postgres re-plans a named
 *   statement by itself when a table it reads changes.
 */
export class EnginePGlite extends PGlite {
  readonly #statements = new Map<string, Statement>();
  #seenOnce = new Set<string>();
  #nextName = 0;

  /** Keeps these result types as text, as drizzle's node-postgres driver gives them (call once it has started). */
  keepAsText(oids: readonly number[]): void {
    for (const oid of oids) this.parsers[oid] = (value: string) => value;
  }

  /** Bytes of the WebAssembly memory Postgres runs in (it grows, never shrinks). */
  memoryBytes(): number {
    return this.mod?.HEAPU8.byteLength ?? 0;
  }

  override async query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const opts = withoutParsers(options);
    if (!this.#reusable(text, opts)) return super.query<T>(text, params, opts);
    await this._checkReady();
    return this._runExclusiveTransaction(() => this.#runNamed<T>(text, params, opts, true));
  }

  override transaction<T>(body: (tx: Transaction) => Promise<T>): Promise<T> {
    return super.transaction((tx) => {
      const query: Transaction['query'] = <R>(text: string, params?: unknown[], options?: QueryOptions) => {
        const opts = withoutParsers(options);
        if (tx.closed || !this.#reusable(text, opts)) return tx.query<R>(text, params, opts);
        return this.#runNamed<R>(text, params, opts, false);
      };
      return body(Object.assign(Object.create(tx) as Transaction, { query }));
    });
  }

  /** Whether a text runs as a named statement: its second use on, and only plain queries (no blobs, no types given). */
  #reusable(text: string, options: QueryOptions | undefined): boolean {
    if (options && (options.blob || options.paramTypes || options.serializers)) return false;
    if (this.#statements.has(text)) return true;
    if (this.#seenOnce.has(text)) return true;
    if (this.#seenOnce.size >= MAX_SEEN_ONCE) this.#seenOnce = new Set();
    this.#seenOnce.add(text);
    return false;
  }

  /** Runs a text as a named statement (parsing it under its name first if it has none yet). */
  #runNamed<T>(text: string, params: unknown[] = [], options: QueryOptions | undefined, outsideTransaction: boolean): Promise<Results<T>> {
    return this._runExclusiveQuery(async () => {
      let messages: BackendMessage[];
      let statement: Statement | undefined;
      try {
        statement = this.#statements.get(text);
        if (statement) {
          // Most recently used last: the first entry is the one to close when there are too many.
          this.#statements.delete(text);
          this.#statements.set(text, statement);
        } else {
          statement = await this.#prepare(text);
        }
        const { paramTypes } = statement;
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const type = paramTypes[i];
          const serializer = type === undefined ? undefined : this.serializers[type];
          return serializer ? (serializer(value) as string) : String(value);
        });
        const bind = serialize.bind({ statement: statement.name, values });
        ({ messages } = await this.execProtocol(concat([bind, EXECUTE_AND_SYNC]), { syncToFs: false }));
      } catch (err) {
        throw annotated(err, text, params, options);
      }
      if (outsideTransaction) await this.syncToFs();
      return parse.parseResults(statement.rows ? [statement.rows, ...messages] : messages, this.parsers, options)[0] as Results<T>;
    });
  }

  async #prepare(text: string): Promise<Statement> {
    const name = `engine_${this.#nextName++}`;
    const message = concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]);
    const { messages } = await this.execProtocol(message, { syncToFs: false });
    const statement: Statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      rows: messages.find((m) => m.name === 'rowDescription'),
    };
    this.#seenOnce.delete(text);
    this.#statements.set(text, statement);
    if (this.#statements.size > MAX_STATEMENTS) {
      const [oldestText, oldest] = this.#statements.entries().next().value as [string, Statement];
      this.#statements.delete(oldestText);
      // Closing is housekeeping: the statement just made runs whether or not the old one closed.
      await this.execProtocol(concat([serialize.close({ type: 'S', name: oldest.name }), serialize.sync()]), { syncToFs: false }).catch(() => undefined);
    }
    return statement;
  }
}

const withoutParsers = (options?: QueryOptions) => (options?.parsers ? { ...options, parsers: undefined } : options);

/** The same fields PGlite's own `query` adds to a database error. */
function annotated(err: unknown, query: string, params: unknown[], options: QueryOptions | undefined): unknown {
  if (err instanceof Error && 'code' in err) Object.assign(err, { query, params, queryOptions: options });
  return err;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
