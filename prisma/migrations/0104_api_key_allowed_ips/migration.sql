-- A key's own IP allow-list (issue 40, lib/auth/authenticate.ts): the addresses and CIDR ranges a
-- key may be used from, checked after the store's IP whitelist (both must let a call through).
-- Empty: the key may be used from wherever the store's whitelist allows, as every key could before.
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" TEXT[] NOT NULL DEFAULT '{}';
