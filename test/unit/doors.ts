/**
 * The door rules as data: each row is a column (or a pair of columns) that only one module
 * writes, the door every other piece of code goes through (docs/architecture.md, "One status
 * door"). test/unit/architecture.test.ts reads this table with one check: in every source file
 * but the door and the files named beside it, no match of the row's `writes` patterns (in the
 * code without comments); and it proves each row on the row's own planted code.
 *
 * To add a door: a row with the columns, the door's file and function, the patterns that find a
 * write (a Prisma data field given a value, a computed key, an SQL assignment) and not a read
 * (a select, a filter), and planted code both ways. The check also makes sure the door itself
 * writes the column, so a row whose patterns find nothing fails.
 *
 * Kept beside the test that reads it, not in lib/: it is a rule about the source, not one the
 * application runs (lib/rules holds those: payment states, settlement, receivers).
 */
export interface Door {
  /** The rule's letter in test/unit/architecture.test.ts and docs/architecture.md. */
  rule: string;
  /** The columns only the door writes (table.column). */
  columns: string;
  /** The one module that may write them. */
  door: string;
  /** The function of the door the rest of the code calls. */
  via: string;
  /** Other files that name a column as a value without changing it, each with its reason. */
  alsoNaming?: Readonly<Record<string, string>>;
  /** Folders whose same names are another thing, each with its reason. */
  notOurs?: Readonly<Record<string, string>>;
  /** A write, in code without comments: every match is a violation. */
  writes: readonly RegExp[];
  /** What to do instead, said when the check fails. */
  advice: string;
  /** Planted code (in `file`, by default lib/planted/x.ts) and what the check must find there: [] where it must find nothing. */
  planted: readonly { file?: string; code: string; found: string[] }[];
}

export const DOORS: readonly Door[] = [
  {
    rule: 'd',
    columns: 'transactions.payment_state',
    door: 'lib/payments/states.ts',
    via: 'changePaymentState',
    // A row's first state, DETECTED, is set where the scanner creates it: a create, no `data:` update.
    writes: [/\bdata:\s*\{[^}]*\bpaymentState\s*:/gi, /\bSET\b[^;`]*\bpayment_state\s*=/gi],
    advice: 'move a payment with changePaymentState: it checks the transition table, refuses under a send in flight and books the ledger',
    planted: [
      { code: "await tx.transaction.updateMany({ where: { id }, data: { error: null, paymentState: 'HELD' } });", found: ['data: { error: null, paymentState:'] },
      { code: "await execute(prisma, sql`UPDATE transactions SET payment_state = 'FORWARDING' WHERE id = ${id}`);", found: ['SET payment_state ='] },
      { code: "await tx.transaction.findFirst({ where: { id, paymentState: 'HELD' } });", found: [] },
    ],
  },
  {
    rule: 'e',
    columns: 'merchants.balance_sun, merchants.activation_balance_sun',
    door: 'lib/merchants/balance.ts',
    via: 'changeMerchantBalance',
    notOurs: { 'devnet/': "the chain simulator: its balanceSun is an account's TRX on chain, not a merchant's" },
    // A Prisma data field given a value (a select, `balanceSun: true`, is none), a computed key, an SQL assignment.
    writes: [
      /\b(?:activationBalanceSun|balanceSun)\s*:\s*(?!true\b|false\b)[^\s,}]/g,
      /['"`](?:activationBalanceSun|balanceSun)['"`]/g,
      /\b(?:activation_balance_sun|balance_sun)"?\s*(?:=(?!=)|\+=|-=)/g,
    ],
    advice: 'change a merchant balance through changeMerchantBalance (lib/merchants/balance.ts), which books it in merchant_balance_entries',
    planted: [
      { code: 'await tx.merchant.update({ where: { id }, data: { balanceSun: { decrement: cost } } });', found: ['balanceSun: {'] },
      { code: "const field = 'activationBalanceSun';\ndata: { [field]: { increment: n } }", found: ["'activationBalanceSun'"] },
      { file: 'scripts/x.ts', code: 'await sql`UPDATE merchants SET balance_sun = balance_sun + ${n}`;', found: ['balance_sun ='] },
      { file: 'lib/merchants/x.ts', code: 'select: { balanceSun: true, activationBalanceSun: true }; show(m.balanceSun); // balanceSun: 5', found: [] },
      { file: 'devnet/x.ts', code: '{ balanceSun: state.balance }', found: [] },
    ],
  },
  {
    rule: 'h',
    columns: 'invoices.network_cost_sun',
    door: 'lib/ledger/networkCost.ts',
    via: 'foldNetworkCosts',
    alsoNaming: {
      'lib/invoices/service.ts': "the record of the invoice just inserted: the column's default, 0, as the INSERT wrote it",
    },
    writes: [/\bnetworkCostSun\s*:\s*(?!true\b|false\b)[^\s,}]|\bnetwork_cost_sun"?\s*(?:=(?!=)|\+=|-=)/g],
    advice: 'book the cost in the ledger (lib/ledger/book.ts): its trigger records NETWORK_COST and ENERGY_RENTAL rows for the invoice, and foldNetworkCosts adds them',
    planted: [
      { code: 'await tx.invoice.update({ where: { id }, data: { networkCostSun: { increment: fee } } });', found: ['networkCostSun: {'] },
      { code: 'await sql`UPDATE invoices SET network_cost_sun = network_cost_sun + ${n}`;', found: ['network_cost_sun ='] },
      { code: 'select: { networkCostSun: true }; show(i.networkCostSun);', found: [] },
    ],
  },
  {
    rule: 'i',
    columns: 'transactions.waiting_reason',
    door: 'lib/energy/engine.ts',
    via: 'noteWaiting',
    // A filter (`waitingReason: { not: null }`) or a select is no write.
    writes: [/\bwaitingReason\s*:\s*(?!true\b|false\b|\{)[^\s,}]|\bwaiting_reason"?\s*=(?!=)/g],
    advice: 'record why a send waits with noteWaiting: it alerts once, as the send begins to wait',
    planted: [
      { code: "await prisma.transaction.update({ where: { id }, data: { waitingReason: 'waiting for energy' } });", found: ["waitingReason: '"] },
      { code: 'await sql`UPDATE transactions SET waiting_reason = NULL`;', found: ['waiting_reason ='] },
      { code: "count({ where: { waitingReason: { startsWith: 'waiting for' } } }); select: { waitingReason: true }", found: [] },
    ],
  },
  {
    rule: 'o',
    columns: 'refunds.state',
    door: 'lib/refunds/states.ts',
    via: 'changeRefundState',
    // A refund's first state is set where it is created; a change is an update whose data names the state.
    writes: [/\brefund\s*\.\s*(?:update|updateMany|upsert)\s*\([^;]*?\bdata\s*:[^;]*?\bstate\s*:/g, /\bUPDATE\s+"?refunds\b[^;`]*?\bSET\b[^;`]*\bstate\s*=/gi],
    advice: "move a refund with changeRefundState (lib/refunds/states.ts): it moves only from the state the caller read; what it does after is its payout's",
    planted: [
      { code: "await tx.refund.updateMany({ where: { id }, data: { state: 'CANCELED' } });", found: ["refund.updateMany({ where: { id }, data: { state:"] },
      { code: "await tx.refund.update({ where: { id }, data: to === 'PAYOUT' ? { state: 'PAYOUT' } : {} });", found: ["refund.update({ where: { id }, data: to === 'PAYOUT' ? { state:"] },
      { code: "await sql`UPDATE refunds SET state = 'CANCELED' WHERE id = ${id}`;", found: ['UPDATE refunds SET state ='] },
      { code: "await tx.refund.updateMany({ where: { id, state: 'PAYOUT', outcomeTold: null }, data: { outcomeTold: status } }); findMany({ where: { state: 'PAYOUT' } });", found: [] },
    ],
  },
  {
    rule: 'p',
    columns: 'payout_targets.state',
    door: 'lib/payouts/targets.ts',
    via: 'changeTargetState',
    // A target's first state, PENDING, is the column's default as the payout's targets are created.
    writes: [/\bpayoutTarget\s*\.\s*(?:update|updateMany|upsert)\s*\([^;]*?\bdata\s*:[^;]*?\bstate\s*:/g, /\bUPDATE\s+"?payout_targets\b[^;`]*?\bSET\b[^;`]*\bstate\s*=/gi],
    advice: 'move a payout target with changeTargetState (lib/payouts/targets.ts): it checks the transition table and refuses FAILED or RETURNED under a send in flight',
    planted: [
      { code: "await tx.payoutTarget.updateMany({ where: { invoiceId, index }, data: { state: 'PAID' } });", found: ["payoutTarget.updateMany({ where: { invoiceId, index }, data: { state:"] },
      { code: "await execute(tx, sql`UPDATE payout_targets SET error = NULL, state = 'PENDING' WHERE invoice_id = ${id}`);", found: ['UPDATE payout_targets SET error = NULL, state ='] },
      { code: "row.state = (await tx.payoutTarget.findUniqueOrThrow({ where: { invoiceId_index: key } })).state; await tx.payoutTarget.createMany({ data: targets });", found: [] },
    ],
  },
  {
    rule: 'q',
    columns: 'audit_log (its rows)',
    door: 'lib/audit/record.ts',
    via: 'recordAudit',
    // Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE (migration 0098); the rows come from the one writer.
    writes: [/\bauditLog\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\s*\(/g, /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?audit_log\b/gi],
    advice: "record an action with recordAudit (lib/audit/record.ts), in the change's own transaction",
    planted: [
      { code: "await tx.auditLog.create({ data: { merchantId, actorKind: 'system', action: 'x' } });", found: ['auditLog.create('] },
      { code: 'await sql`INSERT INTO audit_log (merchant_id, action) VALUES (${id}, ${a})`;', found: ['INSERT INTO audit_log'] },
      { code: 'await prisma.auditLog.findMany({ where: { merchantId }, orderBy: { id: \'desc\' } });', found: [] },
    ],
  },
  {
    rule: 'r',
    columns: 'memberships (its rows: who is a member of a store, with which role)',
    door: 'lib/merchants/members.ts',
    via: 'changeMembership',
    alsoNaming: {
      'lib/merchants/service.ts': "a store's creation (createMerchant) makes its first owner in the same transaction: there is no store to change the members of before it",
    },
    writes: [/\bmembership\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\s*\(/g, /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?memberships\b/gi],
    advice: "add, re-role or remove a member with changeMembership (lib/merchants/members.ts): it keeps a store's last owner and writes the audit row in the same transaction",
    planted: [
      { code: "await tx.membership.update({ where: { id }, data: { role: 'owner' } });", found: ['membership.update('] },
      { code: 'await sql`DELETE FROM memberships WHERE user_id = ${userId}`;', found: ['DELETE FROM memberships'] },
      { code: 'await prisma.membership.findMany({ where: { merchantId } });', found: [] },
    ],
  },
];

/** Whether the door's rule binds this file at all: not the door, not a file named beside it, not a folder where the names are another thing's. */
export function boundBy(door: Door, file: string): boolean {
  return file !== door.door && !(door.alsoNaming && file in door.alsoNaming) && !Object.keys(door.notOurs ?? {}).some((dir) => file.startsWith(dir));
}

/** The writes a door's patterns find in code already stripped of comments (whitespace in each shown as one space). */
export function writesIn(door: Door, code: string): string[] {
  return door.writes.flatMap((re) => [...code.matchAll(re.global ? re : new RegExp(re.source, `${re.flags}g`))].map((m) => m[0].replace(/\s+/g, ' ')));
}
