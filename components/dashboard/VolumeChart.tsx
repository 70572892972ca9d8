import type { VolumeSeries } from '@/lib/transactions/volume';
import { tokenAmountText, type Currency } from '@/lib/money/tokens';

const COLORS: Record<Currency, string> = { TRX: '#dc2626', USDT: '#059669' };
const WIDTH = 720;
const HEIGHT = 200;
const PAD = 24;
// Bar heights are geometry, not money: a bigint ratio scaled to this many steps.
const STEPS = 1000n;

/**
 * Received volume per UTC day, one bar per token and day. Each token has its
 * own scale (their units are not comparable), so the chart compares days.
 */
export function VolumeChart({ series, currencies }: { series: VolumeSeries; currencies: readonly Currency[] }) {
  const { days: dates, volumes } = series;
  const max = Object.fromEntries(currencies.map((c) => [c, volumes.filter((v) => v.currency === c).reduce((m, v) => (BigInt(v.units) > m ? BigInt(v.units) : m), 0n)])) as Record<Currency, bigint>;
  const slot = (WIDTH - PAD * 2) / dates.length;
  const barWidth = slot / currencies.length - 1;
  const totals = currencies.map((c) => ({ c, rows: volumes.filter((v) => v.currency === c) }));

  // Empty bars over an axis read as a chart that failed to load (issue 26): say there is nothing yet.
  if (currencies.every((c) => max[c] === 0n)) {
    return (
      <p role="note" className="rounded-md border border-dashed border-slate-300 p-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
        No payments received in the last {dates.length} days. The chart fills in as payments arrive.
      </p>
    );
  }

  return (
    <figure>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + PAD}`} role="img" aria-labelledby="volume-title" className="w-full">
        {/* One string: text and a number as separate children render as several text nodes, which hydration
            of an SVG <title> reported as a mismatch on every full load of the overview (issue 38). */}
        <title id="volume-title">{`Received volume per day over the last ${dates.length} days`}</title>
        <line x1={PAD} x2={WIDTH - PAD} y1={HEIGHT} y2={HEIGHT} className="stroke-slate-300 dark:stroke-slate-700" />
        {volumes.map((v) => {
          const i = dates.indexOf(v.day);
          const top = max[v.currency];
          if (top === 0n) return null;
          const h = (Number((BigInt(v.units) * STEPS) / top) / Number(STEPS)) * (HEIGHT - PAD);
          const x = PAD + i * slot + currencies.indexOf(v.currency) * (barWidth + 1);
          return (
            <rect key={`${v.day}-${v.currency}`} x={x} y={HEIGHT - h} width={barWidth} height={h} fill={COLORS[v.currency]}>
              <title>{`${v.day}: ${v.amount} ${v.currency}`}</title>
            </rect>
          );
        })}
        {[0, dates.length - 1].map((i) => (
          <text key={i} x={i === 0 ? PAD : WIDTH - PAD} y={HEIGHT + 16} fontSize="11" textAnchor={i === 0 ? 'start' : 'end'} className="fill-slate-500">
            {dates[i]}
          </text>
        ))}
      </svg>
      <figcaption className="mt-2 flex gap-4 text-sm">
        {totals.map(({ c, rows }) => (
          <span key={c} className="flex items-center gap-1">
            <span className="inline-block h-3 w-3 rounded-sm" style={{ background: COLORS[c] }} aria-hidden />
            {c}: {tokenAmountText(rows.reduce((sum, r) => sum + BigInt(r.units), 0n))} received
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
