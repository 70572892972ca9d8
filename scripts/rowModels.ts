import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * `lib/generated/rowModels.ts`, made from prisma/schema.prisma at every `npm install` (postinstall,
 * after `prisma generate`) with Prisma's own schema parser: for each model that lib/db/rows.ts
 * reads with pg straight from the pool, its table and each column with the field it fills, its
 * Prisma type and whether it is nullable or a list. The row mappers are derived from it (issue 39:
 * "row mappers generated or derived, not written per query"), so a column added to the schema is
 * read as Prisma reads it without anyone writing it down a second time.
 */
export const ROW_MODELS = ['Merchant', 'Invoice', 'InvoiceCurrency'] as const;

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
}

const ROOT = path.resolve(import.meta.dirname, '..');

export function rowModelsSource(prismaSchema = readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8')): string {
  const wasm = createRequire(import.meta.url)('@prisma/prisma-schema-wasm') as { get_dmmf(params: string): string };
  const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema }))) as { datamodel: { models: { name: string; dbName?: string | null; fields: DmmfField[] }[] } };
  const models = ROW_MODELS.map((name) => {
    const model = dmmf.datamodel.models.find((m) => m.name === name);
    if (!model) throw new Error(`scripts/rowModels.ts: no model ${name} in prisma/schema.prisma`);
    const fields = model.fields
      .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
      .map((f) => ({ field: f.name, column: f.dbName ?? f.name, type: f.kind === 'enum' ? 'Enum' : f.type, nullable: !f.isRequired, list: f.isList }));
    return [name, { table: model.dbName ?? name, fields }] as const;
  });
  return `// Made by scripts/rowModels.ts from prisma/schema.prisma at npm install: do not edit.\nexport const ROW_MODELS = ${JSON.stringify(Object.fromEntries(models), null, 2)} as const;\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const out = path.join(ROOT, 'lib/generated/rowModels.ts');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, rowModelsSource());
  console.log(`rowModels: ${path.relative(ROOT, out)} (${ROW_MODELS.join(', ')})`);
}
