import { scanHeartbeat } from '@/lib/operations/heartbeat';
import { scanNextBlocks, type CursorAt } from '@/lib/payments/scan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { pacedScan } from './pacedScan';

/**
 * The scanner of solidified blocks asks for its next block a sixth of a block (500 ms on mainnet)
 * after it is due (lib/chain/pace.ts): the solidified head's lag varies more than the head's (a
 * block becomes final when 19 more are made), and half a second is nothing to a minute's finality.
 */
const SOLIDIFIED_MARGIN_SHARE = 6;

/** Records payments and top-ups from confirmed blocks; beats the heartbeat /healthz reads after each completed step (on the worker running it). */
export function scanJob({ ctx }: JobDeps): WorkerJob {
  const beat = scanHeartbeat(ctx.prisma, ctx.owner);
  // Where this worker's last step left the cursor (lib/payments/scan.ts): a step reads it only when unknown.
  let cursor: CursorAt | null = null;
  const paced = pacedScan(ctx.settings.SCAN_POLL_MS ?? ctx.settings.WORKER_POLL_MS, async () => {
    // Unknown again until this step ends: a step that throws leaves it unread.
    const known = cursor;
    cursor = null;
    const result = await scanNextBlocks(ctx, known);
    cursor = result.cursor;
    await beat(); // read by /healthz: this worker is scanning
    return result;
  }, SOLIDIFIED_MARGIN_SHARE);
  // One worker reads the blocks; with several, each would read every block and all but one throw theirs away.
  return { name: 'scan', singleton: true, ...paced };
}
