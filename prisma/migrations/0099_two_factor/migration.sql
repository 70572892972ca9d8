-- Two-factor sign-in with an authenticator app (issue 40, lib/auth/twoFactor.ts). Off for every
-- existing account: nothing changes for a merchant until it turns it on in the dashboard.
ALTER TABLE "merchants"
  ADD COLUMN "totp_secret_enc" TEXT,
  ADD COLUMN "totp_enabled_at" TIMESTAMPTZ(6),
  ADD COLUMN "totp_last_step" BIGINT,
  ADD COLUMN "totp_recovery_hashes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
