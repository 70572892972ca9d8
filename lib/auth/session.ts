import type { AuthOptions, Session } from 'next-auth';
import { getServerSession } from 'next-auth';
import credentialsModule from 'next-auth/providers/credentials';
import { dashboardBaseUrl, exportNextAuthUrl, sessionConfig } from '@/lib/config';
import { db } from '@/lib/db/client';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { verifyPassword } from './passwords';
import { credentialsSchema } from './schemas';
import { TWO_FACTOR_REQUIRED, useSecondFactor, WRONG_TWO_FACTOR_CODE } from './twoFactor';
import { sameOriginCallback } from './callbackUrl';
import { throttledSignIn } from './signInThrottle';
import { derived } from '@/lib/singletons';
import { recordAudit } from '@/lib/audit/record';


declare module 'next-auth' {
  interface Session {
    merchantId?: number;
    /** The merchant's session epoch at sign-in; a session of an older epoch is revoked. */
    epoch?: number;
    /** When the password was last given (Unix seconds): fund-moving changes need it recent. */
    authAt?: number;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    epoch?: number;
    authAt?: number;
  }
}

/**
 * The credentials provider's factory. Under Next (a CommonJS interop of its own) the default import is
 * the function; in server.ts's ES module bundle, which reads the session of the dashboard's JSON API,
 * Node hands over the CommonJS module's exports, with the function as their `default`.
 */
const CredentialsProvider = ((credentialsModule as unknown as { default?: typeof credentialsModule }).default ?? credentialsModule) as typeof credentialsModule;

const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

/**
 * next-auth options, built on first use rather than at import so that
 * `next build` does not need the secret.
 */
export function authOptions(): AuthOptions {
  return derived(authOptions, makeAuthOptions);
}

function makeAuthOptions(): AuthOptions {
  const env = sessionConfig();
  exportNextAuthUrl();
  return {
    secret: env.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    // __Secure- cookie names and the Secure flag whenever the dashboard is served over https.
    useSecureCookies: dashboardBaseUrl().startsWith('https://'),
    pages: { signIn: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'E-mail and password',
        credentials: { email: { label: 'E-mail', type: 'email' }, password: { label: 'Password', type: 'password' }, code: { label: 'Authenticator code', type: 'text' } },
        async authorize(credentials, req) {
          const parsed = credentialsSchema.safeParse(credentials);
          if (!parsed.success) return null;
          const { email, password } = parsed.data;
          const code = typeof credentials?.code === 'string' ? credentials.code.trim() : '';
          const clientIp = req.headers?.[CLIENT_IP_HEADER];
          const ip = String(clientIp ?? 'unknown');
          const prisma = db();
          return throttledSignIn(prisma, { email, ip }, async () => {
            const merchant = await prisma.merchant.findUnique({ where: { email } });
            const ok = await verifyPassword(password, merchant?.passwordHash ?? null);
            if (!merchant) return null;
            // The store's audit log has every sign-in and every wrong password or code given for it, by
            // the e-mail tried (lib/audit/record.ts). An e-mail no store has is no store's to log; an
            // attempt the throttle refused never reached this check.
            const by = { actor: { kind: 'dashboard' as const, email }, ip: clientIp ? String(clientIp) : null };
            if (!ok) {
              await recordAudit(prisma, by, { merchantId: merchant.id, action: 'sign_in_failed' });
              return null;
            }
            // With two-factor sign-in on, the password alone signs in nobody. A thrown error reaches
            // the sign-in form as its `error` (next-auth's credentials flow), and leaves this attempt
            // counted as failed until a complete sign-in clears it, so codes are throttled as passwords are.
            if (merchant.totpEnabledAt) {
              // The right password with the code still to ask for is neither a sign-in nor a failure yet.
              if (!code) throw new Error(TWO_FACTOR_REQUIRED);
              if (!(await useSecondFactor(prisma, merchant, code))) {
                await recordAudit(prisma, by, { merchantId: merchant.id, action: 'sign_in_failed', subject: 'two-factor code' });
                throw new Error(WRONG_TWO_FACTOR_CODE);
              }
            }
            await recordAudit(prisma, by, { merchantId: merchant.id, action: 'sign_in' });
            return { id: String(merchant.id), email: merchant.email };
          });
        },
      }),
    ],
    callbacks: {
      // Where to go after sign-in or sign-out, from the callbackUrl query, form field or cookie, which
      // anyone can set: only a place on the dashboard's own origin (lib/auth/callbackUrl.ts; server.ts
      // drops a bad query or cookie before next-auth, which would answer it with a 500).
      redirect: ({ url, baseUrl }) => sameOriginCallback(url, baseUrl) ?? baseUrl,
      // At sign-in the token records the merchant's session epoch and the time the password was given.
      async jwt({ token, user }) {
        if (user) {
          const merchant = await db().merchant.findUnique({ where: { id: Number(user.id) }, select: { sessionEpoch: true } });
          token.epoch = merchant?.sessionEpoch ?? -1;
          token.authAt = Math.floor(Date.now() / 1000);
        }
        return token;
      },
      // The merchant id travels as the JWT subject (next-auth sets sub from user.id).
      session({ session, token }) {
        return { ...session, merchantId: Number(token.sub), epoch: token.epoch, authAt: token.authAt };
      },
    },
    events: {
      // Signing out ends every session of the merchant, on every device (issue 14, finding 2):
      // a JWT cannot be recalled, so the epoch it carries is made stale instead.
      async signOut({ token }) {
        const id = Number(token?.sub);
        if (Number.isInteger(id)) await endAllSessions(db(), id);
      },
    },
  };
}

/** Makes every existing session of the merchant invalid (sign-out, password change). */
async function endAllSessions(prisma: Pick<PrismaClient, 'merchant'>, merchantId: number): Promise<void> {
  await prisma.merchant.updateMany({ where: { id: merchantId }, data: { sessionEpoch: { increment: 1 } } });
}

export interface SignedIn {
  merchant: Merchant;
  /** When the password was last given, Unix seconds. */
  authAt: number;
}

/**
 * The signed-in merchant and when it gave its password, or null. Read from the
 * database on every request, so a deleted account or a revoked session (epoch
 * changed since sign-in) loses access at once.
 */
export async function currentSession(): Promise<SignedIn | null> {
  return signedIn(db(), await getServerSession(authOptions()));
}

/**
 * currentSession for a request served outside Next (the dashboard's JSON API, lib/http/dashboard):
 * the session is read from the request's own cookies and headers, as next-auth reads Next's
 * (`getServerSession` with its request and a response that keeps nothing: as under Next's
 * route handlers, reading a session sets no cookie).
 */
export async function requestSession(prisma: PrismaClient, req: Request): Promise<SignedIn | null> {
  const from = { headers: Object.fromEntries(req.headers), cookies: Object.fromEntries(parseCookies(req.headers.get('cookie') ?? '')) };
  const discard = { getHeader() {}, setCookie() {}, setHeader() {} };
  return signedIn(prisma, await getServerSession(from as never, discard as never, authOptions()));
}

async function signedIn(prisma: PrismaClient, session: Session | null): Promise<SignedIn | null> {
  const id = session?.merchantId;
  if (!session || !id || !Number.isInteger(id)) return null;
  const merchant = await prisma.merchant.findUnique({ where: { id } });
  if (!merchant || session.epoch !== merchant.sessionEpoch) return null;
  return { merchant, authAt: session.authAt ?? 0 };
}

/** A Cookie header's names and values, read as Next reads them for next-auth (`cookies().getAll()`): the last of a name wins, a value that is no valid %-encoding is left out. */
function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of header.split(/; */)) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    if (eq === -1) {
      cookies.set(pair, 'true');
      continue;
    }
    try {
      cookies.set(pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1)));
    } catch {
      /* as Next: not a cookie it can read */
    }
  }
  return cookies;
}

/** The signed-in merchant, or null (see currentSession). */
export async function sessionMerchant(): Promise<Merchant | null> {
  return (await currentSession())?.merchant ?? null;
}
