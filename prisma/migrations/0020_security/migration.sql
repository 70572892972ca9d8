-- Issue 14. Sessions are revocable: every dashboard session carries the merchant's epoch at
-- sign-in and is refused once it differs (sign-out and password change increment it).
ALTER TABLE "merchants" ADD COLUMN "session_epoch" INTEGER NOT NULL DEFAULT 0;
-- When the payout target wallet last changed, for the dashboard's notice.
ALTER TABLE "merchants" ADD COLUMN "target_wallet_changed_at" TIMESTAMPTZ(6);
-- Failed sign-ins are also counted per account, across addresses (lib/auth/signInThrottle.ts).
CREATE INDEX "sign_in_attempts_email_created_at_idx" ON "sign_in_attempts"("email", "created_at");
