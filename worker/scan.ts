import { scanHeartbeat } from '@/lib/operations/heartbeat';
import { finalityAwaited, scanNextBlocks, type CursorAt } from '@/lib/payments/scan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { pacedScan, type IdleReads } from './pacedScan';

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
  }, SOLIDIFIED_MARGIN_SHARE, idleReads(ctx, beat));
  // One worker reads the blocks; with several, each would read every block and all but one throw theirs away.
  return { name: 'scan', singleton: true, ...paced };
}

/**
 * While nothing waits for finality, the scanner reads once every SCAN_IDLE_BLOCKS blocks (issue 37:
 * a read a block was half of an idle deployment's node requests); while something waits, once the
 * first block it waits for is due, SCAN_IDLE_BLOCKS on at most, and once a block from then on while
 * something waits for the next (lib/payments/scan.ts, `finalityAwaited`). Only with the head scanner on: without it
 * (FORWARD_BEFORE_FINALITY=false) this scanner is the one that sees payments at all.
 */
function idleReads(ctx: JobDeps['ctx'], beat: () => Promise<void>): IdleReads | undefined {
  const { settings } = ctx;
  if (!settings.FORWARD_BEFORE_FINALITY || settings.SCAN_IDLE_BLOCKS <= 1) return undefined;
  return {
    blocks: settings.SCAN_IDLE_BLOCKS,
    async awaited() {
      const awaited = await finalityAwaited(ctx.prisma);
      // A round that found nothing waiting is a completed scan step too: /healthz and the node request
      // counts /metrics shows keep their pace (at most every 5 s), not the reads' (every SCAN_IDLE_BLOCKS blocks).
      await beat();
      return awaited;
    },
  };
}
