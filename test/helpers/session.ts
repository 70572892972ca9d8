import { httpRequest, type HttpResponse, type RequestOptions } from './http';

/**
 * A signed-in dashboard client, the one browser stand-in of the tests: keeps
 * next-auth's cookies, calls from one source IP (the sign-in throttle counts
 * per IP), and signs in through next-auth's credentials flow as its client
 * does (CSRF token, then the callback).
 */
export class DashboardSession {
  /** Public so a test can copy them into another session (a stolen cookie). */
  cookies = new Map<string, string>();
  constructor(
    private readonly baseUrl: string,
    private readonly localAddress = '127.0.0.1',
  ) {}

  async request(path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await httpRequest(`${this.baseUrl}${path}`, { ...opts, localAddress: this.localAddress, headers: { ...(cookie && { cookie }), ...opts.headers } });
    const setCookie = res.headers['set-cookie'] ?? [];
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  /** Returns next-auth's error, or null when signed in. */
  /** Signs in; null when signed in, else next-auth's error (`CredentialsSignin`, `TwoFactorRequired`, ...). */
  /** `code` is an authenticator or recovery code, or `{ passkey }` a passkey's answer (JSON text, as the sign-in form sends it). */
  async signIn(email: string, password: string, code?: string | { passkey: string }): Promise<string | null> {
    const { csrfToken } = (await this.request('/api/auth/csrf')).json as { csrfToken: string };
    const second: Record<string, string> = code === undefined ? {} : typeof code === 'string' ? { code } : code;
    const res = await this.request('/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, email, password, ...second, json: 'true' }).toString(),
    });
    return new URL((res.json as { url: string }).url).searchParams.get('error');
  }

  async signOut(): Promise<void> {
    const { csrfToken } = (await this.request('/api/auth/csrf')).json as { csrfToken: string };
    await this.request('/api/auth/signout', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, json: 'true' }).toString(),
    });
  }

  /** A dashboard call as the dashboard's own pages make it: a same-origin fetch (changes from elsewhere are refused). */
  api(path: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.request(`/dashboard/api${path}`, { method, body, headers: { 'sec-fetch-site': 'same-origin', ...headers } });
  }
}
