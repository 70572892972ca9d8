import { httpRequest, type HttpResponse, type RequestOptions } from './http';

/**
 * A signed-in dashboard client: keeps next-auth's cookies and signs in through
 * its credentials flow as its client does (CSRF token, then the callback).
 */
export class DashboardSession {
  private cookies = new Map<string, string>();
  constructor(private readonly baseUrl: string) {}

  async request(path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await httpRequest(`${this.baseUrl}${path}`, { ...opts, headers: { ...(cookie && { cookie }), ...opts.headers } });
    const setCookie = res.headers['set-cookie'] ?? [];
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  /** Returns next-auth's error, or null when signed in. */
  async signIn(email: string, password: string): Promise<string | null> {
    const { csrfToken } = (await this.request('/api/auth/csrf')).json as { csrfToken: string };
    const res = await this.request('/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, email, password, json: 'true' }).toString(),
    });
    return new URL((res.json as { url: string }).url).searchParams.get('error');
  }
}
