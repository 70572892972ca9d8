import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';

/** A refused dashboard request: `detail` as the API writes it, `errors` per field for 400s, `reason` where the API adds one. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
    readonly reason?: string,
  ) {
    super(message);
  }
}

const REAUTH_CODE = 'reauth_required';

/** A refusal that asks for the password again (`code: "reauth_required"`): its detail, and whether a second-factor code is asked too (`reason: "two_factor"`). */
async function reauthRefusal(res: Response): Promise<{ detail: string; twoFactor: boolean } | null> {
  if (res.status !== 403) return null;
  const body = (await res.clone().json().catch(() => ({}))) as { code?: string; detail?: string; reason?: string };
  return body.code === REAUTH_CODE ? { detail: body.detail ?? '', twoFactor: body.reason === 'two_factor' } : null;
}

/** A required field of the re-authentication dialog: its label and its input, tied by `id`. */
function dialogField(id: string, text: string, type: string, autocomplete: AutoFill): [HTMLLabelElement, HTMLInputElement] {
  const label = document.createElement('label');
  label.htmlFor = id;
  label.className = 'block text-sm font-medium';
  label.textContent = text;
  const input = document.createElement('input');
  input.id = id;
  input.type = type;
  input.autocomplete = autocomplete;
  input.required = true;
  input.className = 'mt-1 block w-full rounded border border-slate-300 px-2 py-1.5 dark:border-slate-600 dark:bg-slate-800';
  return [label, input];
}

/** The second factor a confirmation sends: a code (X-Confirm-Code) or a passkey's answer (X-Confirm-Passkey). */
type SecondFactor = { code: string } | { passkey: string };

/**
 * A passkey's answer to a new challenge (lib/auth/passkeys.ts), as JSON text: the options from the
 * server, the browser's own passkey prompt, then the challenge's id with the answer.
 */
export async function passkeyAssertion(): Promise<string> {
  const res = await fetch('/api/passkeys/options', { method: 'POST' });
  const body = (await res.json().catch(() => ({}))) as { challenge_id?: number; options?: Parameters<typeof startAuthentication>[0]['optionsJSON']; detail?: string };
  if (!res.ok || !body.options) throw new Error(body.detail ?? 'The passkey could not be asked for; try again.');
  const response = await startAuthentication({ optionsJSON: body.options });
  return JSON.stringify({ challenge_id: body.challenge_id, response });
}

/** Whether the signed-in user holds a passkey this browser could use: the dialog then offers it. */
async function hasPasskey(): Promise<boolean> {
  if (!browserSupportsWebAuthn()) return false;
  const res = await fetch('/dashboard/api/settings/two-factor').catch(() => null);
  const body = res?.ok ? ((await res.json().catch(() => ({}))) as { passkeys?: unknown[] }) : {};
  return (body.passkeys?.length ?? 0) > 0;
}

/**
 * Asks for the password in a centred modal dialog (native <dialog>, so focus and Escape work)
 * and sends the change with it through `attempt`. A wrong password is said in the dialog, which
 * stays open for another try (issue 26, item 5); any other answer closes it and is returned.
 * With two-factor sign-in on, a code is asked too, or, for a user with a passkey, "Use a passkey"
 * sends the password with the passkey's answer instead. Resolves null when cancelled.
 */
function confirmWithPassword(message: string, twoFactor: boolean, passkey: boolean, attempt: (password: string, second?: SecondFactor) => Promise<Response>): Promise<Response | null> {
  return new Promise((resolve) => {
    const id = `reauth-${Math.random().toString(36).slice(2)}`;
    const dialog = document.createElement('dialog');
    dialog.setAttribute('aria-labelledby', `${id}-title`);
    // Tailwind's reset drops the browser's centring of a modal dialog; put it back.
    dialog.className = 'fixed inset-0 m-auto h-fit w-full max-w-sm rounded-lg bg-white p-6 text-slate-900 shadow-xl backdrop:bg-black/40 dark:bg-slate-900 dark:text-slate-100';
    const form = document.createElement('form');
    form.className = 'space-y-4';
    const title = document.createElement('h2');
    title.id = `${id}-title`;
    title.className = 'text-base font-semibold';
    title.textContent = message;
    const [label, input] = dialogField(`${id}-password`, 'Password', 'password', 'current-password');
    // With two-factor sign-in on (issue 40), a code from the authenticator app or a recovery code too.
    const [codeLabel, codeInput] = dialogField(`${id}-code`, passkey ? 'Authenticator code (or use a passkey)' : 'Authenticator code', 'text', 'one-time-code');
    const error = document.createElement('p');
    error.setAttribute('role', 'alert');
    error.className = 'text-sm text-red-700 dark:text-red-400';
    const buttons = document.createElement('div');
    buttons.className = 'flex justify-end gap-2';
    const cancel = document.createElement('button');
    cancel.textContent = 'Cancel';
    cancel.type = 'button';
    cancel.className = 'rounded px-3 py-1.5 text-sm hover:bg-slate-100 dark:hover:bg-slate-800';
    const ok = document.createElement('button');
    ok.textContent = 'Confirm';
    ok.type = 'submit';
    ok.className = 'rounded bg-slate-900 px-3 py-1.5 text-sm text-white disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900';
    const usePasskey = document.createElement('button');
    usePasskey.textContent = 'Use a passkey';
    usePasskey.type = 'button';
    usePasskey.className = 'mr-auto rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50 dark:border-slate-600 dark:hover:bg-slate-800';
    buttons.append(...(twoFactor && passkey ? [usePasskey] : []), cancel, ok);
    form.append(title, label, input, ...(twoFactor ? [codeLabel, codeInput] : []), error, buttons);
    dialog.append(form);

    let answer: Response | null = null;
    cancel.onclick = () => dialog.close();
    // The password and the passkey: the code field is not needed then.
    usePasskey.onclick = async () => {
      if (!input.reportValidity()) return;
      usePasskey.disabled = true;
      error.textContent = '';
      let assertion: string;
      try {
        assertion = await passkeyAssertion();
      } catch {
        error.textContent = 'The passkey was not used; try again, or enter a code.';
        usePasskey.disabled = false;
        return;
      }
      await send({ passkey: assertion }).finally(() => (usePasskey.disabled = false));
    };
    form.onsubmit = async (event) => {
      event.preventDefault();
      if (!input.value || (twoFactor && !codeInput.value)) return;
      ok.disabled = true;
      await send(twoFactor ? { code: codeInput.value } : undefined).finally(() => (ok.disabled = false));
    };
    async function send(second: SecondFactor | undefined): Promise<void> {
      error.textContent = '';
      try {
        const res = await attempt(input.value, second);
        const refused = await reauthRefusal(res);
        if (refused === null) {
          answer = res;
          dialog.close();
          return;
        }
        error.textContent = refused.detail || 'Wrong password.';
        input.value = '';
        codeInput.value = '';
        input.focus();
      } catch {
        error.textContent = 'The request failed; try again.';
      }
    }
    dialog.addEventListener('close', () => {
      resolve(answer);
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * Calls a session-authenticated route under /dashboard/api. A fund-moving change
 * refused with `reauth_required` (sign-in older than DASHBOARD_REAUTH_MINUTES)
 * asks for the password and is sent once more with it (docs/dashboard.md); cancelled, the
 * first refusal is what the caller sees.
 */
export async function dashboardApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const send = (password?: string, second?: SecondFactor) =>
    fetch(`/dashboard/api${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(password !== undefined && { 'x-confirm-password': encodeURIComponent(password) }),
        ...(second && 'code' in second && { 'x-confirm-code': second.code.trim() }),
        // JSON, percent-encoded as the password is (header values are bytes).
        ...(second && 'passkey' in second && { 'x-confirm-passkey': encodeURIComponent(second.passkey) }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  let res = await send();
  const refusal = await reauthRefusal(res);
  if (refusal !== null) {
    const passkey = refusal.twoFactor && (await hasPasskey());
    const message = !refusal.twoFactor ? 'This change needs your password.' : passkey ? 'This change needs your password and a code or passkey.' : 'This change needs your password and a code.';
    res = (await confirmWithPassword(message, refusal.twoFactor, passkey, send)) ?? res;
  }
  // A full page load on purpose: an expired session must drop every cached query, not just change route.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  if (res.status === 401) window.location.assign('/signin');
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { detail?: string; errors?: Record<string, string[]>; reason?: string };
  if (!res.ok) throw new RequestError(res.status, data.detail ?? res.statusText, data.errors, data.reason);
  return data as T;
}

/** A query string from the filters that are set, so empty inputs do not reach the validators. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}
