'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import { dashboardApi, queryString } from './api';

const PAGE = 20;

/**
 * A filtered, paged dashboard list: filters are strings as the API's query takes
 * them, any change goes back to the first page, and the previous page stays on
 * screen while the next one loads.
 */
export function useFilteredList<T, F extends Record<string, string | undefined>>(key: string, path: string, initial: F, refetchInterval?: number) {
  const [filters, setFilters] = useState(initial);
  const [offset, setOffset] = useState(0);
  const set = (name: keyof F) => (e: { target: { value: string } }) => {
    setFilters({ ...filters, [name]: e.target.value });
    setOffset(0);
  };
  const qs = queryString({ ...filters, limit: PAGE, offset });
  const query = useQuery({
    queryKey: [key, qs],
    queryFn: () => dashboardApi<PageEnvelope<T>>(`${path}${qs}`),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
  return { filters, set, pager: { limit: PAGE, offset, onOffset: setOffset }, ...query };
}
