/** A refused dashboard request: `detail` as the API writes it, `errors` per field for 400s. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/** Calls a session-authenticated route under /dashboard/api. */
export async function dashboardApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`/dashboard/api${path}`, {
    method: init.method ?? 'GET',
    headers: init.body === undefined ? undefined : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  // A full page load on purpose: an expired session must drop every cached query, not just change route.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  if (res.status === 401) window.location.assign('/signin');
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { detail?: string; errors?: Record<string, string[]> };
  if (!res.ok) throw new RequestError(res.status, data.detail ?? res.statusText, data.errors);
  return data as T;
}

/** A query string from the filters that are set, so empty inputs do not reach the validators. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}
