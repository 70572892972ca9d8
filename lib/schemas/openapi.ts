import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/**
 * What the API document says of a schema whose JSON Schema zod cannot derive
 * (a preprocess that reads two forms, a query string that is a number). The
 * schema that validates stays the source; this only replaces its description
 * in /openapi.json. Kept beside the schema it describes, so the two change together.
 */
const documented = z.registry<{ jsonSchema: JsonSchema }>();

export function documentAs<S extends z.ZodType>(schema: S, jsonSchema: JsonSchema): S {
  documented.add(schema, { jsonSchema });
  return schema;
}

type ToJsonSchemaParams = NonNullable<Parameters<typeof z.toJSONSchema>[1]>;

/** The options every conversion for the API document uses. */
export function jsonSchemaOptions(io: 'input' | 'output'): ToJsonSchemaParams {
  return {
    io,
    target: 'draft-2020-12',
    // Transforms have no JSON Schema; where one matters, documentAs says what it reads.
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const replacement = documented.get(zodSchema);
      if (!replacement) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
      Object.assign(jsonSchema, structuredClone(replacement.jsonSchema));
    },
  };
}
