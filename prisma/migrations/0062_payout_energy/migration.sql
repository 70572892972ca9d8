-- The energy pool pays mass payouts too (issue 23, docs/energy.md): one lending of energy and one of
-- bandwidth per wave of target sends from the payout address (index = the wave).
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_ENERGY';
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_BANDWIDTH';
