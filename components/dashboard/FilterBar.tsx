'use client';

import { useId, useState, type ReactNode } from 'react';
import { Button } from './ui';

const DEFAULT_ORDERING = '-created_at';

/**
 * A list's filters (issue 38, item 10): on a phone the search and a "Filters" button, the other
 * filters behind it, so the list starts on the first screen; from `sm` up, all of them in the grid.
 * Open from the start when any of them is set (a link or a reload with filters in the URL).
 */
export function FilterBar({ search, filters, columns, children }: { search: ReactNode; filters: Record<string, string | undefined>; columns: string; children: ReactNode }) {
  // Those set behind the button: the search is beside it, and the default ordering is no filter.
  const active = Object.entries(filters).filter(([name, value]) => name !== 'search' && value && !(name === 'ordering' && value === DEFAULT_ORDERING)).length;
  const [open, setOpen] = useState(active > 0);
  const id = useId();
  return (
    <div className={`mb-4 grid grid-cols-2 gap-3 sm:grid-cols-3 ${columns}`}>
      <div className="col-span-2 flex items-end gap-2 sm:col-span-1">
        <div className="min-w-0 flex-1">{search}</div>
        <Button variant="secondary" className="sm:hidden" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          Filters{active > 0 ? ` (${active})` : ''}
        </Button>
      </div>
      {/* `contents`: the filters stay items of the grid above, as if written in it. */}
      <div id={id} className={open ? 'contents' : 'hidden sm:contents'}>
        {children}
      </div>
    </div>
  );
}
