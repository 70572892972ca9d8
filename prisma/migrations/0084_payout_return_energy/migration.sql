-- A USDT payout's return is paid with the pool's energy (or rented energy) too (issue 23,
-- docs/energy.md "Payouts"): the pool's lending for the return's attempt (index = the attempt).
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_RETURN_ENERGY';
