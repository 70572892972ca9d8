-- Scoped API keys (issue 40): what each key may call, by the names of lib/auth/scopes.ts. Every
-- key made before this holds all four, so existing integrations answer as before; the default is
-- only there to fill those rows and is dropped, so a new key always names its scopes.
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['read', 'invoices:write', 'payouts:write', 'refunds:write']::TEXT[];
ALTER TABLE "api_keys" ALTER COLUMN "scopes" DROP DEFAULT;
-- At least one scope, each one of the list: a key that could call nothing, or a name the
-- application does not check, is a mistake to refuse here too.
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_known" CHECK (
  cardinality("scopes") > 0 AND "scopes" <@ ARRAY['read', 'invoices:write', 'payouts:write', 'refunds:write']::TEXT[]
);
