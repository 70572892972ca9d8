import { Button } from './ui';

/** Previous/next over a limit/offset list; `count` is the total the server reported. */
export function Pager({ count, limit, offset, onOffset }: { count: number; limit: number; offset: number; onOffset: (offset: number) => void }) {
  const last = Math.min(offset + limit, count);
  return (
    <div className="mt-3 flex items-center justify-between text-sm">
      <span aria-live="polite">{count === 0 ? 'Nothing found' : `${offset + 1}–${last} of ${count}`}</span>
      <div className="flex gap-2">
        <Button variant="secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </Button>
        <Button variant="secondary" disabled={last >= count} onClick={() => onOffset(offset + limit)}>
          Next
        </Button>
      </div>
    </div>
  );
}
