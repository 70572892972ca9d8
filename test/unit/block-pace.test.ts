/**
 * The scanners' pace (lib/chain/pace.ts, issue 37): they read the head (or the solidified head)
 * again once the next block is due, not every poll. On fixed heads and a fixed clock: no timer runs
 * here. What it spares a node is measured by `npm run bench:node-requests` (docs/chain.md).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlockPace, LONGEST_WAIT_MS } from '@/lib/chain/pace';
import { pacedScan } from '@/worker/pacedScan';

const POLL = 500;
/**
 * A pace that has seen heads `numbers`, mainnet-spaced (block n stamped at n x 3 s) unless `stamp`
 * says otherwise, each read `lag` ms after its stamp (by our clock).
 */
function paceAfter(numbers: number[], { stamp = (n: number) => n * 3_000, lag = 200 }: { stamp?: (n: number) => number; lag?: number } = {}): BlockPace {
  const pace = new BlockPace();
  for (const n of numbers) pace.saw({ number: n, timestamp: stamp(n) }, stamp(n) + lag);
  return pace;
}

describe('the scanners wait for the next block to be due (issue 37)', () => {
  it('poll at their own pace until they have seen two heads', () => {
    assert.equal(new BlockPace().untilNextMs(0, POLL), POLL);
    assert.equal(paceAfter([10]).untilNextMs(30_200, POLL), POLL);
  });

  it('on 3 s blocks, having just read a block, wait until the next is due', () => {
    const pace = paceAfter([10, 11]);
    assert.equal(pace.intervalMs, 3_000);
    // Block 11 was stamped at 33 s and seen 200 ms later; block 12 is due to be seen at 36.2 s, and asked for a
    // thirtieth of the interval (100 ms) after.
    assert.equal(pace.untilNextMs(33_300, POLL), 3_000);
  });

  it('once the next block is due or late, ask at the usual pace until it comes', () => {
    const pace = paceAfter([10, 11]);
    assert.equal(pace.untilNextMs(35_900, POLL), POLL, '300 ms before it is due');
    assert.equal(pace.untilNextMs(36_200, POLL), POLL, 'due now');
    assert.equal(pace.untilNextMs(37_200, POLL), POLL, 'a second late (a missed slot)');
  });

  it('the solidified head: its block is a minute old when it becomes final, and the next is due a block later', () => {
    // Final 19 blocks deep: block n is seen as the solidified head 57 s after its stamp.
    const pace = paceAfter([10, 11, 12], { lag: 57_000 });
    assert.equal(pace.untilNextMs(36_000 + 57_000 + 200, POLL), 2_900);
    assert.equal(pace.untilNextMs(36_000 + 57_000 + 2_800, POLL), POLL);
  });

  it('the lag is the shortest seen: a head read late (the poll came after it) does not push the next read later', () => {
    const pace = new BlockPace();
    pace.saw({ number: 10, timestamp: 30_000 }, 30_100);
    pace.saw({ number: 11, timestamp: 33_000 }, 33_450); // read 450 ms after its stamp: the poll was late
    assert.equal(pace.untilNextMs(33_500, POLL), 2_700, 'due at 36.1 s, by the 100 ms seen for block 10, and asked 100 ms after');
  });

  it('a clock set wrong does not move the reads: its difference is in the lag', () => {
    // Our clock 10 s behind the chain's.
    const pace = paceAfter([10, 11], { lag: 200 - 10_000 });
    assert.equal(pace.untilNextMs(33_400 - 10_000, POLL), 2_900);
  });

  it('a missed slot does not lengthen the interval: the shortest of the last ones counts', () => {
    // Block 12 missed its slot: 13 came 6 s after 11 (3 s a block over two blocks); 14 then 6 s after 13 in one block.
    const pace = paceAfter([10, 11, 13, 14], { stamp: (n) => (n === 14 ? 45_000 : n * 3_000) });
    assert.equal(pace.intervalMs, 3_000);
    assert.equal(pace.untilNextMs(45_400, POLL), 2_900);
  });

  it('a block found by the read made at its due time and margin teaches the lag without the margin: the reads do not drift later', () => {
    const pace = paceAfter([10, 11]);
    let now = 33_300;
    for (let n = 12; n < 40; n++) {
      const readAt = now + pace.untilNextMs(now, POLL);
      // Each block seen 200 ms after its stamp, as the first two were; the read asked 100 ms after that.
      assert.equal(readAt, n * 3_000 + 300, `block ${n} asked for 300 ms after its stamp`);
      pace.saw({ number: n, timestamp: n * 3_000 }, readAt);
      now = readAt + 100;
    }
  });

  it('on blocks faster than the poll (the tests\' devnet), keep the poll', () => {
    const pace = paceAfter([100, 101, 102], { stamp: (n) => n * 50, lag: 10 });
    assert.equal(pace.intervalMs, 50);
    assert.equal(pace.untilNextMs(5_111, POLL), POLL);
  });

  it('never wait longer than one interval, nor than LONGEST_WAIT_MS', () => {
    const slow = paceAfter([10, 11], { stamp: (n) => n * 10_000 });
    assert.equal(slow.untilNextMs(110_300, POLL), LONGEST_WAIT_MS);
  });

  it('the scanner of solidified blocks while nothing waits: until the block ten on is due, and the reads do not drift', () => {
    // Final 19 blocks deep, a sixth of a block's margin (worker/scan.ts): block 12 seen at 93.2 s; block 22 due 30 s on, asked for 500 ms after.
    const pace = new BlockPace(6);
    for (const n of [10, 11, 12]) pace.saw({ number: n, timestamp: n * 3_000 }, n * 3_000 + 57_200);
    assert.equal(pace.untilNextMs(93_700, POLL, 10), 30_000);
    assert.equal(pace.untilNextMs(93_700, POLL, 1), 3_000, 'once a block, as before');
    let now = 93_700;
    let last = 12;
    for (let i = 0; i < 5; i++) {
      const readAt = now + pace.untilNextMs(now, POLL, 10);
      last += 10;
      assert.equal(readAt, last * 3_000 + 57_700, `block ${last} asked for 500 ms after it is due`);
      pace.saw({ number: last, timestamp: last * 3_000 }, readAt);
      now = readAt + 500;
    }
  });

  it('genesis, the solidified head of a chain younger than its finality depth, teaches nothing: the reads of the first blocks final wait ten blocks', () => {
    // The chain began at 0 s; genesis (stamped then) was the solidified head read 5 s in. Block 1 is stamped 3 s and,
    // final 19 blocks deep, seen 57.2 s after: then blocks 2 and 3, a block apart.
    const pace = new BlockPace(6);
    pace.saw({ number: 0, timestamp: 0 }, 5_000);
    assert.equal(pace.untilNextMs(5_500, POLL, 10), POLL, 'nothing learnt from genesis: the poll');
    for (const n of [1, 2, 3]) pace.saw({ number: n, timestamp: n * 3_000 }, n * 3_000 + 57_200);
    assert.equal(pace.intervalMs, 3_000);
    assert.equal(pace.untilNextMs(66_700, POLL, 10), 30_000, 'block 13 due 30 s on (at 96.2 s), asked for 500 ms after');
  });

  it('a read made sooner than the wait told (something came to wait) teaches the lag it saw, not less by the margin', () => {
    const pace = new BlockPace(6);
    for (const n of [10, 11, 12]) pace.saw({ number: n, timestamp: n * 3_000 }, n * 3_000 + 57_200);
    pace.untilNextMs(93_700, POLL, 10);
    // Read 4 s later, sooner than planned: block 13 was seen 57.2 s after its stamp, as the others.
    pace.unplanned();
    pace.saw({ number: 13, timestamp: 39_000 }, 96_200);
    assert.equal(pace.untilNextMs(96_700, POLL), 3_000, 'block 14 due at 99.2 s and asked 500 ms after (taking the margin off its lag: at 99.2 s)');
  });

  it('blocks turning final later than the lags kept say (a stalled node): the read that finds fewer blocks than it waited for teaches the later lag, and the next waits the whole span', () => {
    // Final 19 blocks deep, read every 10 blocks (worker/scan.ts); from block 31 on each is final 6 s later than
    // before (the chain stalled: every block from then turns final that much later after its stamp).
    const finalAt = (n: number) => n * 3_000 + 57_200 + (n > 30 ? 6_000 : 0);
    // The solidified head at `at`: the newest block final by then.
    const headAt = (at: number) => {
      let n = Math.floor(at / 3_000);
      while (finalAt(n) > at) n--;
      return n;
    };
    const pace = new BlockPace(6);
    for (const n of [10, 11, 12]) pace.saw({ number: n, timestamp: n * 3_000 }, finalAt(n));
    let now = finalAt(12) + 500;
    const reads: string[] = [];
    for (let i = 0; i < 8; i++) {
      const readAt = now + pace.untilNextMs(now, POLL, 10);
      const n = headAt(readAt);
      reads.push(`${n}@${readAt}`);
      pace.saw({ number: n, timestamp: n * 3_000 }, readAt);
      now = readAt + 500;
    }
    // 22 as before; the read for 32 finds 30 (31 is final 6 s later than the lags kept say), and teaches its lag;
    // then 10 blocks a read again, every 30 s. With the shorter lags kept, the reads after 30 came every 24 s and
    // found 8 blocks each, until eight reads had passed.
    assert.deepEqual(reads, ['22@123700', '30@153700', '40@183700', '50@213700', '60@243700', '70@273700', '80@303700', '90@333700']);
  });

  it('an older head read from a lagging node teaches nothing and does not move it back', () => {
    const pace = paceAfter([10, 11]);
    pace.saw({ number: 9, timestamp: 27_000 }, 33_250);
    assert.equal(pace.intervalMs, 3_000);
    assert.equal(pace.untilNextMs(33_400, POLL), 2_900);
  });
});

describe('a scanner woken before its next read is due (worker/pacedScan.ts, issue 37)', () => {
  it('does not read again: every job is woken when any makes progress, and no block is due sooner for that', async () => {
    let reads = 0;
    // A minute's poll: the read after the first is planned a minute on, whatever the machine's speed.
    const paced = pacedScan(60_000, async () => {
      reads++;
      return { more: false, recorded: 0, head: { number: 10 + reads, timestamp: Date.now() } };
    });
    assert.equal(await paced.step(), false);
    assert.equal(reads, 1, 'the first step reads');
    // Woken five times (a door changed a state, a scanner recorded a payment): read at each before, four to six reads a
    // block on mainnet while a paid invoice was worked on (npm run bench:node-requests).
    for (let i = 0; i < 5; i++) await paced.step();
    assert.equal(reads, 1, 'no read before the planned one');
  });
});
