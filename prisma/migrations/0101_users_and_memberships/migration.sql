-- Users and stores apart (issue 40, "members and roles"). Until now a merchant row was both the
-- store and its one login. From here a user signs in (users: e-mail, password, session epoch and
-- two-factor sign-in) and a store (still the merchants table, with its keys, wallets and settings)
-- has members, each with one role (lib/auth/roles.ts; the CHECK keeps to that list).
--
-- The login columns MOVE to users (they are not mirrored): one place to check a password or a
-- code, one session epoch to end a user's sessions. merchants.email stays as the store's account
-- e-mail (the dashboard's settings show it; the founding owner's at sign-up).
CREATE TABLE "users" (
  "id" SERIAL PRIMARY KEY,
  "email" TEXT NOT NULL,
  "password_hash" TEXT,
  "session_epoch" INTEGER NOT NULL DEFAULT 0,
  "totp_secret_enc" TEXT,
  "totp_enabled_at" TIMESTAMPTZ(6),
  "totp_last_step" BIGINT,
  "totp_recovery_hashes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

CREATE TABLE "memberships" (
  "id" SERIAL PRIMARY KEY,
  "user_id" INTEGER NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id") ON DELETE CASCADE,
  "role" TEXT NOT NULL CHECK ("role" IN ('owner', 'admin', 'finance', 'support', 'developer')),
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "memberships_user_id_merchant_id_key" ON "memberships"("user_id", "merchant_id");
CREATE INDEX "memberships_merchant_id_idx" ON "memberships"("merchant_id");

-- Every existing merchant becomes a store whose login is a user of the same id (so ids in logs
-- and sessions read alike), owner of it. Its password, epoch and two-factor state come along as
-- they are: the same e-mail and password sign in, the same authenticator codes and recovery codes
-- work. Keys, wallets and every /v1/api answer are the store's and do not change.
INSERT INTO "users" ("id", "email", "password_hash", "session_epoch", "totp_secret_enc", "totp_enabled_at", "totp_last_step", "totp_recovery_hashes", "created_at")
  SELECT "id", "email", "password_hash", "session_epoch", "totp_secret_enc", "totp_enabled_at", "totp_last_step", "totp_recovery_hashes", "created_at" FROM "merchants";
SELECT setval(pg_get_serial_sequence('users', 'id'), GREATEST((SELECT max("id") FROM "users"), 1), (SELECT max("id") FROM "users") IS NOT NULL);
INSERT INTO "memberships" ("user_id", "merchant_id", "role", "created_at")
  SELECT "id", "id", 'owner', "created_at" FROM "merchants";

ALTER TABLE "merchants"
  DROP COLUMN "password_hash",
  DROP COLUMN "session_epoch",
  DROP COLUMN "totp_secret_enc",
  DROP COLUMN "totp_enabled_at",
  DROP COLUMN "totp_last_step",
  DROP COLUMN "totp_recovery_hashes";
