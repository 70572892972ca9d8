-- The audit log (issue 40): who did what to a store, when and from where. Every security-relevant
-- and money-moving change writes its row in the transaction of the change (lib/audit/record.ts).
--
-- No foreign keys, on purpose: a log must outlive what it names. A row keeps the store's id, the
-- key's id and the payout's id as they were, even after the store, the key or the payout is gone;
-- and a cascade from merchants would be a DELETE on this table, which the trigger below refuses.
CREATE TABLE "audit_log" (
  "id" BIGSERIAL PRIMARY KEY,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "merchant_id" INTEGER NOT NULL,
  -- dashboard: a signed-in user (actor is the e-mail); api_key: a merchant API call (api_key_id,
  -- actor is the key's prefix); system: an operator command or the service itself (actor names it).
  "actor_kind" TEXT NOT NULL CHECK ("actor_kind" IN ('dashboard', 'api_key', 'system')),
  "actor" TEXT,
  "api_key_id" INTEGER,
  "action" TEXT NOT NULL,
  "client_ip" TEXT,
  -- What the action was done to: a payout's or refund's id, a key's id, a payment's hash.
  "subject" TEXT,
  -- Values before and after, never a secret (a webhook secret's change is recorded without either).
  "before" JSONB,
  "after" JSONB
);

-- The dashboard's page: one store's rows, newest first (by id, the order they were written in).
CREATE INDEX "audit_log_merchant_id_id_idx" ON "audit_log"("merchant_id", "id");

-- Append-only: the application (and anyone with its credentials) can add rows and read them, never
-- change or remove one. Row triggers refuse UPDATE and DELETE, a statement trigger TRUNCATE. A
-- superuser can still drop the trigger; that is an act a database's own logs show.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "audit_log_no_update" BEFORE UPDATE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
CREATE TRIGGER "audit_log_no_delete" BEFORE DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log" FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
