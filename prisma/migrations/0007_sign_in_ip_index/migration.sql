-- Sign-in and sign-up limits also count per IP across e-mails (lib/auth/signInThrottle.ts).
CREATE INDEX "sign_in_attempts_ip_created_at_idx" ON "sign_in_attempts"("ip", "created_at");
