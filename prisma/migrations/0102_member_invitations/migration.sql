-- Invitations to a store (issue 40, lib/merchants/invitations.ts): an owner invites an e-mail with
-- a role; the link holds a one-time token, of which only its SHA-256 is kept (it is 256 random
-- bits: a fast hash suffices, as for API keys). Accepted once (accepted_at), before expires_at.
CREATE TABLE "member_invitations" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id") ON DELETE CASCADE,
  "email" TEXT NOT NULL,
  "role" TEXT NOT NULL CHECK ("role" IN ('owner', 'admin', 'finance', 'support', 'developer')),
  "token_hash" TEXT NOT NULL,
  "invited_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "expires_at" TIMESTAMPTZ(6) NOT NULL,
  "accepted_at" TIMESTAMPTZ(6)
);
CREATE UNIQUE INDEX "member_invitations_token_hash_key" ON "member_invitations"("token_hash");
CREATE INDEX "member_invitations_merchant_id_idx" ON "member_invitations"("merchant_id");
