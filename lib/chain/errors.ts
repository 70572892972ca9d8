/** Base of every error the chain layer throws on purpose. */
export class ChainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The node could not be reached or answered with an HTTP error: back off and retry. */
export class ChainUnavailableError extends ChainError {
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Whether `e` (or an error it wraps) is a connection the node closed under the request: "socket
 * hang up", ECONNRESET, EPIPE. A client that keeps connections alive meets it when the node (or a
 * load balancer in front of it) closes an idle one just as a request goes out on it (issue 27,
 * finding 7); the request did not reach the node or got no answer, so an idempotent call may be
 * sent again.
 */
export function isConnectionReset(e: unknown): boolean {
  for (let cause = e, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && RESET_CODES.has(code)) return true;
    if (typeof message === 'string' && /socket hang up/i.test(message)) return true;
  }
  return false;
}

/** The node answered, but not with what the call needs (unknown contract, reverted estimate, malformed reply). */
export class ChainResponseError extends ChainError {}

/**
 * What a caller can still do with a transaction the node refused:
 * - `same-tx`: the node was busy or cut off; broadcasting the same bytes later may succeed.
 * - `rebuild`: this transaction can never land (expired, stale reference block); build a new one.
 * - `never`: it is invalid as built (bad signature, balance too low); retrying as-is will fail again.
 */
export type RetryAdvice = 'same-tx' | 'rebuild' | 'never';

const ADVICE: Record<string, RetryAdvice> = {
  SERVER_BUSY: 'same-tx',
  NO_CONNECTION: 'same-tx',
  NOT_ENOUGH_EFFECTIVE_CONNECTION: 'same-tx',
  BLOCK_UNSOLIDIFIED: 'same-tx',
  TAPOS_ERROR: 'rebuild',
  TRANSACTION_EXPIRATION_ERROR: 'rebuild',
};

/**
 * java-tron's validation refusals that no retry and no rebuild can fix (issue 34): the transaction is
 * invalid for what it is, not for the moment it was sent: TRX to a smart contract (TransferActuator,
 * with forbidTransferToContract on, as on mainnet), TRX to its own sender, an amount of 0, a call to
 * an address that is no contract, a delegation to a contract. Transient refusals are not among them:
 * a stale reference block (TAPOS_ERROR), an expiration, a busy node, bandwidth or a balance short now
 * (BANDWITH_ERROR, "balance is not sufficient"), an account not yet created.
 */
const PERMANENT_REFUSAL = /Cannot transfer TRX to a smartContract|Cannot transfer TRX to yourself|Amount must be greater than 0|No contract or not a smart contract|Do not allow delegate resources to contract addresses/i;

/** Whether a refusal (`CODE: message`, as sends store it) can never succeed, however often the transaction is rebuilt. */
export function isPermanentRefusal(text: string | null | undefined): boolean {
  return PERMANENT_REFUSAL.test(text ?? '');
}

/** broadcasttransaction refused the transaction with a java-tron response code. */
export class TxRejectedError extends ChainError {
  readonly retry: RetryAdvice;
  /** No transaction of this kind to this recipient can ever be accepted (isPermanentRefusal). */
  readonly permanent: boolean;

  constructor(
    readonly code: string,
    readonly nodeMessage: string,
    readonly txId: string,
  ) {
    super(`${code}: ${nodeMessage}`);
    this.retry = ADVICE[code] ?? 'never';
    this.permanent = code === 'CONTRACT_VALIDATE_ERROR' && isPermanentRefusal(nodeMessage);
  }
}
