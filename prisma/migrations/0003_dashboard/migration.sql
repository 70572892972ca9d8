-- Failed (and in-flight) dashboard sign-ins, per e-mail and client IP. Kept in the
-- database rather than in memory so the limit holds across web processes.
CREATE TABLE "sign_in_attempts" (
  "id" BIGSERIAL PRIMARY KEY,
  "email" TEXT NOT NULL,
  "ip" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "sign_in_attempts_email_ip_created_at_idx" ON "sign_in_attempts"("email", "ip", "created_at");
CREATE INDEX "sign_in_attempts_created_at_idx" ON "sign_in_attempts"("created_at");
