-- The energy pool's withdrawal of expired unstaked TRX (WithdrawExpireUnfreeze; issue 23, docs/energy.md).
ALTER TYPE "TransactionType" ADD VALUE 'WITHDRAW';
