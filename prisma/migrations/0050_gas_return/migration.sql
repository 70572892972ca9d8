-- Gas margin swept back from single-use addresses (issue 13; docs/worker.md, "Gas returned").

-- A send of the TRX gas remainder from an invoice address back to the gas wallet; its cost payer is SERVICE.
ALTER TYPE "SendPurpose" ADD VALUE 'GAS_RETURN';
-- Its ledger rows at both ends: leaving the invoice address (-) and arriving at the gas wallet (+).
ALTER TYPE "LedgerKind" ADD VALUE 'GAS_RETURN_OUT';
ALTER TYPE "LedgerKind" ADD VALUE 'GAS_RETURN_IN';
-- A settled payment of a SINGLE invoice whose address may still hold gas TRX: the worker returns
-- it once nothing else of ours is in flight there, then clears the flag.
ALTER TABLE "transactions" ADD COLUMN "gas_return_due" BOOLEAN NOT NULL DEFAULT false;
