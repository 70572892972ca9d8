'use client';

import { useEffect, useState } from 'react';

function format(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const mm = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
  const ss = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * Time left until `expiresAt`, by the server's clock: `skewMs` is how far the
 * browser's clock is behind it. Rendered after mount, as the server cannot know the browser's time.
 */
export function Countdown({ expiresAt, skewMs, label }: { expiresAt: string; skewMs: number; label: string }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    const tick = () => setNow(Date.now() + skewMs);
    tick();
    const timer = setInterval(tick, 1_000);
    return () => clearInterval(timer);
  }, [skewMs]);
  const left = now === null ? null : Date.parse(expiresAt) - now;
  return (
    <p className="flex items-baseline gap-2 rounded-lg border border-slate-200 bg-white px-3 py-1 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300">
      <span>{label}</span>
      <time role="timer" dateTime={expiresAt} className={`font-mono text-base font-semibold tabular-nums ${left !== null && left < 5 * 60_000 ? 'text-red-700 dark:text-red-400' : ''}`}>
        {left === null ? '--:--' : format(left)}
      </time>
    </p>
  );
}
