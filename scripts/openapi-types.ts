/**
 * Writes test/generated/openapi.d.ts: the TypeScript types openapi-typescript
 * makes of the API document, used by the typed client in test/api/openapi.test.ts
 * (which also fails when this file is out of date). Run after changing an API schema:
 * `npx tsx scripts/openapi-types.ts`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '@/lib/openapi/document';

export const OPENAPI_TYPES_FILE = path.resolve(import.meta.dirname, '../test/generated/openapi.d.ts');

export async function openApiTypes(document: object): Promise<string> {
  return astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(OPENAPI_TYPES_FILE, await openApiTypes(openApiDocument()));
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_TYPES_FILE)}`);
}
