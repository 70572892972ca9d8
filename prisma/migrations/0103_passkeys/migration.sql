-- Passkeys (WebAuthn) as a second factor (issue 40, lib/auth/passkeys.ts): a user may hold several,
-- each its authenticator's credential id (base64url, unique across users: an authenticator makes a
-- new one per registration), its public key (COSE, as @simplewebauthn/server stores it) and the
-- signature counter last seen, which must grow where the authenticator keeps one.
CREATE TABLE "passkeys" (
  "id" SERIAL PRIMARY KEY,
  "user_id" INTEGER NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "credential_id" TEXT NOT NULL,
  "public_key" BYTEA NOT NULL,
  "counter" BIGINT NOT NULL DEFAULT 0,
  "transports" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "name" TEXT NOT NULL DEFAULT 'Passkey',
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "last_used_at" TIMESTAMPTZ(6)
);
CREATE UNIQUE INDEX "passkeys_credential_id_key" ON "passkeys"("credential_id");
CREATE INDEX "passkeys_user_id_idx" ON "passkeys"("user_id");

-- The challenges a ceremony signs, kept server-side rather than in the session: sign-in has no
-- session yet, and two web processes must not both accept one. Each is taken once (DELETE ...
-- RETURNING) before expires_at (5 minutes). user_id is set for a registration, null for a
-- sign-in (usernameless: the user is who the password named, and the credential must be theirs).
CREATE TABLE "webauthn_challenges" (
  "id" SERIAL PRIMARY KEY,
  "challenge" TEXT NOT NULL,
  "purpose" TEXT NOT NULL CHECK ("purpose" IN ('register', 'authenticate')),
  "user_id" INTEGER REFERENCES "users"("id") ON DELETE CASCADE,
  "expires_at" TIMESTAMPTZ(6) NOT NULL
);
CREATE INDEX "webauthn_challenges_expires_at_idx" ON "webauthn_challenges"("expires_at");
