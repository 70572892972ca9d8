import { publicBaseUrl, sessionConfig } from '@/lib/config';
import type { PrismaClient } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { requestSession, type SignedIn } from '@/lib/auth/session';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** Origins the dashboard is served from: the configured public ones and the Host this request was sent to. */
function ownOrigins(req: Request): Set<string> {
  const origins = new Set<string>();
  for (const base of [sessionConfig().NEXTAUTH_URL, publicBaseUrl()]) {
    try {
      if (base) origins.add(new URL(base).origin);
    } catch {
      /* not a URL: config() refuses it at start-up */
    }
  }
  const host = req.headers.get('host');
  if (host) for (const scheme of ['http', 'https']) origins.add(`${scheme}://${host}`.toLowerCase());
  return origins;
}

function originOf(value: string | null): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether a change comes from the dashboard's own pages. The browser's
 * `Sec-Fetch-Site` decides when sent; without it, `Origin` (or else `Referer`)
 * must name this service. A request with none of the three is refused: every
 * browser that could be driven by another site sends at least one of them, and
 * the dashboard's pages always do.
 */
function sameOrigin(req: Request): boolean {
  const site = req.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = req.headers.get('origin');
  const claimed = origin !== null ? originOf(origin) : originOf(req.headers.get('referer'));
  return claimed !== null && ownOrigins(req).has(claimed);
}

/**
 * A change's body must be JSON: an HTML form (urlencoded, multipart, text/plain)
 * can be posted from any site without a CORS preflight, JSON cannot.
 */
function jsonOrEmpty(req: Request): boolean {
  const type = req.headers.get('content-type');
  if (type === null) return !req.headers.get('transfer-encoding') && Number(req.headers.get('content-length') ?? 0) === 0;
  return /^application\/json\s*(;|$)/i.test(type);
}

/** The dashboard's caller: the signed-in merchant and when it gave its password (for requireRecentAuth). */
export type DashboardCaller = SignedIn;

/**
 * The dashboard API's authenticate step. The session cookie is SameSite=Lax; changes must also
 * come from the dashboard's own origin with a JSON body (issue 14, finding 7), and the session
 * must still be current (lib/auth/session.ts).
 */
export async function authenticateSession(req: Request, prisma: PrismaClient): Promise<DashboardCaller> {
  if (!SAFE_METHODS.has(req.method)) {
    if (!sameOrigin(req)) throw new AppError('FORBIDDEN', 'Cross-site request refused');
    if (!jsonOrEmpty(req)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
  }
  const session = await requestSession(prisma, req);
  if (!session) throw new AppError('UNAUTHORIZED', 'Not signed in');
  return session;
}
