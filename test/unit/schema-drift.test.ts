import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../helpers/db';

/**
 * The database is built by the SQL in prisma/migrations (Prisma's migrate engine
 * cannot be downloaded here) while Prisma Client is generated from
 * prisma/schema.prisma. This proves the two describe the same database: every
 * table, column, type, nullability, enum and index of one is in the other.
 * The schema is read with Prisma's own parser (its wasm build, from npm).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

/** Indexes that only SQL can express (Prisma ignores them); each with its reason. */
const SQL_ONLY_INDEXES: Record<string, string> = {
  transactions_one_send_in_flight_from: 'partial unique index (sends SIGNED or BROADCAST): at most one forward, refund or gas return in flight from an address, even when two workers race (issue 13, migrations 0010, 0051)',
  transactions_gas_return_due_idx: 'partial index (WHERE gas_return_due): the worker finds settled payments with gas to return without scanning every transaction (issue 13, migration 0051)',
  transactions_one_gas_in_flight_to: 'partial unique index: at most one gas send in flight to an address (issue 13, migration 0010)',
  transactions_one_account_creation_in_flight_to: 'partial unique index (WHERE creates_account, sends SIGNED or BROADCAST): at most one send costed with creating its recipient\'s account in flight to an address, so two TRX forwards to a new wallet never both deduct the creation (migration 0092)',
  transactions_one_energy_op_in_flight_to: 'partial unique index on (to_address, resource): at most one lending or taking back of the energy pool in flight to an address for each resource, so the two never race (issue 23, migrations 0059, 0109)',
  transactions_delegate_created_at_idx: 'partial index (WHERE type = DELEGATE): the energy job sums the last hour\'s lending every few seconds without scanning every transaction (issue 23, migration 0068)',
  transactions_unsolidified: 'partial index (WHERE NOT solidified): the scanners find the payments seen before finality by block without scanning every transaction (issue 24, migration 0070)',
  transactions_waiting_idx: 'partial index (WHERE waiting_reason IS NOT NULL): the energy job, the energy status and /metrics count the payments waiting for energy without scanning every transaction (issue 23, migration 0068)',
  invoices_merchant_id_created_at_id_search_idx: 'index with INCLUDE columns, which Prisma cannot express: a search page walks the newest invoices testing address, description and order id in the index, not in each row (issue 16, migrations 0055 and 0061)',
  invoices_merchant_id_lower_order_id_idx: 'expression index (lower(order_id) text_pattern_ops), which Prisma cannot express: the list search finds an order id by its start, case-insensitively, as a range of this index (issue 26, migration 0061)',
  refunds_outcome_untold: 'partial index (WHERE state = PAYOUT AND outcome_told IS NULL): the worker finds the refunds whose outcome it has yet to tell without scanning every refund (issue 36, migration 0095)',
  invoices_active_expiry_idx: 'partial index (WHERE status = ACTIVE) on expired_at: the expiry job and the idle scanner\'s deadline check find open invoices past their deadline without walking every invoice of the status (issue 37, migration 0107)',
  invoices_open_payouts_idx: 'partial index (WHERE type = MULTIPLE_TRANSFER AND status = ACTIVE), which Prisma cannot express: the payout loop finds open payouts without scanning every invoice (migration 0005)',
};

interface DmmfField { name: string; dbName?: string | null; kind: string; type: string; isList: boolean; isRequired: boolean; nativeType?: [string, string[]] | null }
interface DmmfModel { name: string; dbName?: string | null; fields: DmmfField[] }
interface DmmfIndex { model: string; type: 'id' | 'unique' | 'normal' | 'fulltext'; fields: { name: string }[] }
interface Dmmf { datamodel: { models: DmmfModel[]; enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[]; indexes: DmmfIndex[] } }

function readDmmf(): Dmmf {
  const wasm = require('@prisma/prisma-schema-wasm') as { get_dmmf(params: string): string };
  const prismaSchema = readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8');
  return JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema }))) as Dmmf;
}

/** PostgreSQL's name for the column type Prisma expects (information_schema.columns: data_type / udt_name). */
function expectedType(f: DmmfField, enumDbName: (name: string) => string): string {
  const native = f.nativeType?.[0];
  const scalar: Record<string, string> = {
    Int: 'int4', BigInt: 'int8', Boolean: 'bool', Json: 'jsonb', Float: 'float8', Bytes: 'bytea',
    String: native === 'VarChar' ? 'varchar' : native === 'Uuid' ? 'uuid' : 'text',
    DateTime: native === 'Timestamptz' ? 'timestamptz' : 'timestamp',
    Decimal: 'numeric',
  };
  const base = f.kind === 'enum' ? enumDbName(f.type) : scalar[f.type];
  assert.ok(base, `no SQL type known for ${f.type}`);
  return f.isList ? `_${base}` : base;
}

describe('migrations and prisma/schema.prisma', () => {
  it('describe exactly the same tables, columns, types, enums and indexes', async () => {
    const dmmf = readDmmf();
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const q = async <T,>(sql: string) => (await client.query(sql)).rows as T[];
      const columns = await q<{ table_name: string; column_name: string; udt_name: string; is_nullable: string; numeric_precision: number | null; numeric_scale: number | null; character_maximum_length: number | null; datetime_precision: number | null }>(
        `SELECT table_name, column_name, udt_name, is_nullable, numeric_precision, numeric_scale, character_maximum_length, datetime_precision
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_migrations'`,
      );
      const enums = await q<{ name: string; value: string }>(
        `SELECT t.typname AS name, e.enumlabel AS value FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid ORDER BY t.typname, e.enumsortorder`,
      );
      const indexes = await q<{ table: string; name: string; unique: boolean; columns: string[] | null; def: string }>(
        `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, pg_get_indexdef(ix.indexrelid) AS def,
                (SELECT array_agg(a.attname::text ORDER BY k.n) FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, n)
                   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
         FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace ns ON ns.oid = t.relnamespace WHERE ns.nspname = 'public' AND t.relname <> '_migrations'`,
      );

      const problems: string[] = [];
      const enumDbName = (name: string) => dmmf.datamodel.enums.find((e) => e.name === name)?.dbName ?? name;
      const tableOf = new Map(dmmf.datamodel.models.map((m) => [m.name, m.dbName ?? m.name]));
      const modelTables = new Set(tableOf.values());

      for (const table of new Set(columns.map((c) => c.table_name))) {
        if (!modelTables.has(table)) problems.push(`table ${table} is in the migrations but not in schema.prisma`);
      }
      for (const model of dmmf.datamodel.models) {
        const table = tableOf.get(model.name)!;
        const dbCols = new Map(columns.filter((c) => c.table_name === table).map((c) => [c.column_name, c]));
        if (dbCols.size === 0) {
          problems.push(`model ${model.name}: no table ${table} in the migrations`);
          continue;
        }
        const fields = model.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
        for (const f of fields) {
          const column = f.dbName ?? f.name;
          const c = dbCols.get(column);
          if (!c) {
            problems.push(`${table}.${column} (${model.name}.${f.name}) is in schema.prisma but not in the migrations`);
            continue;
          }
          const want = expectedType(f, enumDbName);
          if (c.udt_name !== want) problems.push(`${table}.${column}: migrations make ${c.udt_name}, schema.prisma says ${want}`);
          if (!f.isList && (c.is_nullable === 'NO') !== f.isRequired) {
            problems.push(`${table}.${column}: migrations make it ${c.is_nullable === 'NO' ? 'NOT NULL' : 'nullable'}, schema.prisma ${f.isRequired ? 'required' : 'optional'}`);
          }
          const args = f.nativeType?.[1] ?? [];
          if (f.type === 'Decimal' && args.length === 2 && (String(c.numeric_precision) !== args[0] || String(c.numeric_scale) !== args[1])) {
            problems.push(`${table}.${column}: numeric(${c.numeric_precision},${c.numeric_scale}) vs @db.Decimal(${args.join(',')})`);
          }
          if (f.nativeType?.[0] === 'VarChar' && args[0] && String(c.character_maximum_length) !== args[0]) {
            problems.push(`${table}.${column}: varchar(${c.character_maximum_length}) vs @db.VarChar(${args[0]})`);
          }
        }
        for (const column of dbCols.keys()) {
          if (!fields.some((f) => (f.dbName ?? f.name) === column)) problems.push(`${table}.${column} is in the migrations but not in schema.prisma`);
        }
      }

      const dbEnums = new Map<string, string[]>();
      for (const e of enums) dbEnums.set(e.name, [...(dbEnums.get(e.name) ?? []), e.value]);
      for (const e of dmmf.datamodel.enums) {
        const want = e.values.map((v) => v.dbName ?? v.name);
        assert.ok(want.length > 0);
        const got = dbEnums.get(e.dbName ?? e.name);
        if (!got) problems.push(`enum ${e.name} is not in the migrations`);
        else if (got.join(',') !== want.join(',')) problems.push(`enum ${e.name}: migrations [${got.join(', ')}], schema.prisma [${want.join(', ')}]`);
        dbEnums.delete(e.dbName ?? e.name);
      }
      for (const name of dbEnums.keys()) problems.push(`enum ${name} is in the migrations but not in schema.prisma`);

      const fieldColumn = (model: string, field: string) => {
        const f = dmmf.datamodel.models.find((m) => m.name === model)!.fields.find((x) => x.name === field)!;
        return f.dbName ?? f.name;
      };
      const unmatched = new Set(indexes.map((i) => i.name));
      for (const idx of dmmf.datamodel.indexes) {
        const table = tableOf.get(idx.model)!;
        const cols = idx.fields.map((f) => fieldColumn(idx.model, f.name)).join(',');
        const unique = idx.type === 'id' || idx.type === 'unique';
        const found = indexes.find((i) => i.table === table && (i.columns ?? []).join(',') === cols && i.unique === unique && unmatched.has(i.name));
        if (!found) problems.push(`${idx.type} index on ${table}(${cols}) is in schema.prisma but not in the migrations`);
        else unmatched.delete(found.name);
      }
      for (const name of unmatched) {
        if (SQL_ONLY_INDEXES[name]) continue;
        const i = indexes.find((x) => x.name === name)!;
        problems.push(`index ${name} is in the migrations but not in schema.prisma (add it there, or to SQL_ONLY_INDEXES with a reason): ${i.def}`);
      }

      assert.deepEqual(problems, []);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
