-- The delivery log shows what each attempt got back (issue 26): beside the status code, the start
-- of the receiver's answer, at most 1,000 characters (lib/webhooks/deliver.ts reads no more).
ALTER TABLE "webhook_deliveries" ADD COLUMN "response_body" VARCHAR(1000);
