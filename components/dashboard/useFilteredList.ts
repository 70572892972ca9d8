'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { usePathname, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import { dashboardApi, queryString } from './api';

const PAGE = 20;
// Typing a search would otherwise send one request per keystroke.
const SEARCH_DELAY_MS = 300;

/** The filters as the URL has them (only the list's own names), over the defaults. */
function filtersFromUrl<F extends Record<string, string | undefined>>(params: URLSearchParams, defaults: F): F {
  const out: Record<string, string | undefined> = { ...defaults };
  for (const name of Object.keys(defaults)) {
    const value = params.get(name);
    if (value !== null) out[name] = value;
  }
  return out as F;
}

/** `page` in the URL is 1-based; anything that is not a page number is the first page. */
function offsetFromUrl(params: URLSearchParams): number {
  const page = Number(params.get('page'));
  return Number.isInteger(page) && page > 1 ? (page - 1) * PAGE : 0;
}

/** The URL's query for what is applied: the filters that differ from the defaults, and the page. */
function urlQuery(applied: Record<string, string | undefined>, defaults: Record<string, string | undefined>, offset: number): string {
  const changed = Object.fromEntries(Object.entries(applied).filter(([k, v]) => v !== defaults[k]));
  return queryString({ ...changed, page: offset > 0 ? offset / PAGE + 1 : undefined });
}

/**
 * A filtered, paged dashboard list: filters are strings as the API's query takes
 * them, any change goes back to the first page, and the previous page stays on
 * screen while the next one loads. The `search` text is applied once typing
 * pauses; any other filter at once (taking the search typed so far with it).
 * What is applied is kept in the page's URL (issue 26: a reload, a shared link and
 * "back" from an invoice open the same list), written with history.replaceState
 * so a filter change adds no history entry and asks the server for nothing.
 */
export function useFilteredList<T, F extends Record<string, string | undefined>>(key: string, path: string, defaults: F, refetchInterval?: number) {
  const params = useSearchParams();
  // The list's own page: leaving it (a link to another page), the list neither takes the new URL's
  // query as its filters nor writes its own query over the new page's URL.
  const pathname = usePathname();
  const [home] = useState(pathname);
  const [filters, setFilters] = useState(() => filtersFromUrl(params, defaults));
  const [applied, setApplied] = useState(filters);
  const [offset, setOffset] = useState(() => offsetFromUrl(params));
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
  const search = urlQuery(applied, defaults, offset);
  // A navigation to this list with other filters (a link such as a release's "See the transfer", or the
  // nav's own link to the bare list) keeps the page mounted: the URL wins. The list's own replaceState
  // below writes `search` itself, so it never differs then.
  const fromUrl = urlQuery(filtersFromUrl(params, defaults), defaults, offsetFromUrl(params));
  const [seenUrl, setSeenUrl] = useState(fromUrl);
  if (seenUrl !== fromUrl && pathname === home) {
    // Adjusted while rendering (react.dev, "Adjusting some state when a prop changes"), not in an effect.
    setSeenUrl(fromUrl);
    if (fromUrl !== search) {
      const next = filtersFromUrl(params, defaults);
      setFilters(next);
      setApplied(next);
      setOffset(offsetFromUrl(params));
    }
  }
  useEffect(() => {
    if (window.location.pathname !== home) return;
    const here = new URLSearchParams(window.location.search);
    // Keep parameters that are not this list's (none today), replace the list's own.
    for (const name of [...Object.keys(defaults), 'page']) here.delete(name);
    for (const [k, v] of new URLSearchParams(search)) here.set(k, v);
    const text = here.toString();
    const url = `${window.location.pathname}${text ? `?${text}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', url);
    // `defaults` is a literal of the caller: a new object each render, the same names.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);
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
