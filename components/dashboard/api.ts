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

/**
 * Asks for the password in a modal dialog (native <dialog>, so focus and Escape
 * work); resolves null when cancelled.
 */
function askPassword(message: string): Promise<string | null> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.className = 'rounded-lg p-4 shadow-xl backdrop:bg-black/40 dark:bg-slate-900 dark:text-slate-100';
    const form = document.createElement('form');
    form.method = 'dialog';
    form.className = 'space-y-3';
    const label = document.createElement('label');
    label.className = 'block text-sm';
    label.textContent = message;
    const input = document.createElement('input');
    input.type = 'password';
    input.autocomplete = 'current-password';
    input.required = true;
    input.className = 'mt-1 block w-64 rounded border border-slate-300 px-2 py-1 dark:border-slate-600 dark:bg-slate-800';
    label.append(input);
    const ok = document.createElement('button');
    ok.textContent = 'Confirm';
    ok.value = 'ok';
    ok.className = 'rounded bg-slate-900 px-3 py-1 text-sm text-white dark:bg-slate-100 dark:text-slate-900';
    const cancel = document.createElement('button');
    cancel.textContent = 'Cancel';
    cancel.type = 'button';
    cancel.className = 'ml-2 rounded px-3 py-1 text-sm';
    cancel.onclick = () => dialog.close('cancel');
    form.append(label, ok, cancel);
    dialog.append(form);
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok' && input.value ? input.value : null);
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * Calls a session-authenticated route under /dashboard/api. A fund-moving change
 * refused with `reauth_required` (sign-in older than DASHBOARD_REAUTH_MINUTES)
 * asks for the password and is sent once more with it (docs/dashboard.md).
 */
export async function dashboardApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const send = (password?: string) =>
    fetch(`/dashboard/api${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(password !== undefined && { 'x-confirm-password': encodeURIComponent(password) }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  let res = await send();
  if (res.status === 403 && ((await res.clone().json().catch(() => ({}))) as { code?: string }).code === 'reauth_required') {
    const password = await askPassword('This change needs your password.');
    if (password !== null) res = await send(password);
  }
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
