'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import { dashboardApi, queryString } from './api';

const PAGE = 20;
// Typing a search would otherwise send one request per keystroke.
const SEARCH_DELAY_MS = 300;

/**
 * A filtered, paged dashboard list: filters are strings as the API's query takes
 * them, any change goes back to the first page, and the previous page stays on
 * screen while the next one loads. The `search` text is applied once typing
 * pauses; any other filter at once (taking the search typed so far with it).
 */
export function useFilteredList<T, F extends Record<string, string | undefined>>(key: string, path: string, initial: F, refetchInterval?: number) {
  const [filters, setFilters] = useState(initial);
  const [applied, setApplied] = useState(initial);
  const [offset, setOffset] = useState(0);
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);
  const set = (name: keyof F) => (e: { target: { value: string } }) => {
    const next = { ...filters, [name]: e.target.value };
    setFilters(next);
    clearTimeout(pending.current);
    const apply = () => {
      setApplied(next);
      setOffset(0);
    };
    if (name === 'search') pending.current = setTimeout(apply, SEARCH_DELAY_MS);
    else apply();
  };
  const qs = queryString({ ...applied, limit: PAGE, offset });
  const query = useQuery({
    queryKey: [key, qs],
    queryFn: () => dashboardApi<PageEnvelope<T>>(`${path}${qs}`),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
  // The CSV export takes the filters as they are on screen (paging aside): what you see is what you download.
  const exportHref = `/dashboard/api${path}/export${queryString(filters)}`;
  return { filters, set, pager: { limit: PAGE, offset, onOffset: setOffset }, exportHref, ...query };
}
