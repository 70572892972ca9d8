import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Prisma } from '@/lib/generated/prisma/client';

/**
 * The one way raw SQL is written here (docs/architecture.md, "Reads and writes"; issue 39): a
 * small typed builder whose query is written once as fragments (a filter, an ordering, a search
 * predicate) and composed by whatever uses it. Values are always parameters ($1, $2, ... numbered
 * when the query is built); only fragments become text. It runs on two executors: pg on the pool
 * (`Queryable`, the API's hot reads) and Prisma's client or transaction (`queryRows`, `execute`,
 * for SQL that must run inside a Prisma transaction or beside Prisma's writes).
 */
export class Sql {
  private constructor(
    /** Text pieces, one more than `values`: text[0] value[0] text[1] ... */
    readonly texts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The tagged template: interpolated `Sql` fragments are inlined, anything else is a parameter. */
  static of(strings: TemplateStringsArray | readonly string[], ...args: unknown[]): Sql {
    const texts: string[] = [strings[0]!];
    const values: unknown[] = [];
    args.forEach((arg, i) => {
      if (arg instanceof Sql) {
        texts[texts.length - 1] += arg.texts[0]!;
        for (let j = 0; j < arg.values.length; j++) {
          values.push(arg.values[j]);
          texts.push(arg.texts[j + 1]!);
        }
        texts[texts.length - 1] += strings[i + 1]!;
      } else {
        values.push(arg);
        texts.push(strings[i + 1]!);
      }
    });
    return new Sql(texts, values);
  }

  /** Text from code, never from input (column names, keywords). */
  static raw(text: string): Sql {
    return new Sql([text], []);
  }

  /** `$1`-numbered text and its values; a named (prepared) statement per distinct text when `name` is given. */
  query(name?: string): pg.QueryConfig {
    const text = this.texts.reduce((all, t, i) => `${all}$${i}${t}`);
    const values = [...this.values];
    if (!name) return { text, values };
    return { name: `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text, values };
  }
}

export const sql = Sql.of;

/** The fragments joined by `separator` (an empty list gives `empty`). */
export function join(fragments: readonly Sql[], separator: string, empty = ''): Sql {
  if (fragments.length === 0) return Sql.raw(empty);
  return Sql.of(['', ...fragments.slice(1).map(() => separator), ''], ...fragments);
}

/** AND of the conditions (TRUE for none). */
export const and = (conditions: readonly Sql[]): Sql => (conditions.length === 1 ? conditions[0]! : sql`(${join(conditions, ' AND ', 'TRUE')})`);
/** OR of the conditions (FALSE for none). */
export const or = (conditions: readonly Sql[]): Sql => (conditions.length === 1 ? conditions[0]! : sql`(${join(conditions, ' OR ', 'FALSE')})`);
/** True where the condition is false or NULL (plain NOT of a NULL is NULL, which no WHERE keeps). */
export const not = (condition: Sql): Sql => sql`(${condition}) IS NOT TRUE`;

/** A pool, or one of its clients inside a transaction. */
export interface Queryable {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

/**
 * Prisma's client or an interactive transaction's client (`prisma.$transaction(async (tx) => ...)`):
 * only the two methods that run SQL text with parameters, so both fit.
 */
export interface PrismaRaw {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Prisma.PrismaPromise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Prisma.PrismaPromise<number>;
}

/*
 * Prisma's tagged `$queryRaw` builds the same `$1`-numbered text and hands it and the values to the
 * same raw query as `$queryRawUnsafe(text, ...values)` does (its client maps both to one request,
 * the values serialised alike: bigint, Date, Decimal, arrays), so a query moved from Prisma's tag to
 * this one runs, and returns, as it did. The values stay parameters: nothing of them enters the text.
 * A Prisma promise is returned, not awaited: it runs when awaited, and can be one of a batch
 * `$transaction([...])`.
 */

/** The rows of `q`, run on Prisma's client or transaction `client`. */
export function queryRows<T = unknown>(client: PrismaRaw, q: Sql): Prisma.PrismaPromise<T[]> {
  const { text, values = [] } = q.query();
  return client.$queryRawUnsafe<T[]>(text, ...values);
}

/** Runs `q` (an UPDATE, DELETE, INSERT ...) on Prisma's client or transaction `client`: the number of rows it touched. */
export function execute(client: PrismaRaw, q: Sql): Prisma.PrismaPromise<number> {
  const { text, values = [] } = q.query();
  return client.$executeRawUnsafe(text, ...values);
}
