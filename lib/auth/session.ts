import type { AuthOptions, Session } from 'next-auth';
import { getServerSession } from 'next-auth';
import credentialsModule from 'next-auth/providers/credentials';
import { dashboardBaseUrl, exportNextAuthUrl, sessionConfig } from '@/lib/config';
import { db } from '@/lib/db/client';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { isMemberRole, type MemberRole } from './roles';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { verifyPassword } from './passwords';
import { credentialsSchema, passkeyResponseFrom } from './schemas';
import { usePasskey } from './passkeys';
import { hasSecondFactor, PASSKEY_SUMMARY, TWO_FACTOR_REQUIRED, useSecondFactor, WRONG_TWO_FACTOR_CODE, type UserWithPasskeys } from './twoFactor';
import { sameOriginCallback } from './callbackUrl';
import { throttledSignIn } from './signInThrottle';
import { derived } from '@/lib/singletons';
import { recordAudit } from '@/lib/audit/record';


declare module 'next-auth' {
  interface Session {
    /** The signed-in user (migration 0101: a login, apart from the stores it is a member of). */
    userId?: number;
    /** The store (merchant) the dashboard shows: one the user is a member of, checked on every request. */
    storeId?: number;
    /** The user's session epoch at sign-in; a session of an older epoch is revoked. */
    epoch?: number;
    /** When the password was last given (Unix seconds): fund-moving changes need it recent. */
    authAt?: number;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    storeId?: number;
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
        credentials: { email: { label: 'E-mail', type: 'email' }, password: { label: 'Password', type: 'password' }, code: { label: 'Authenticator code', type: 'text' }, passkey: { label: 'Passkey', type: 'text' } },
        async authorize(credentials, req) {
          const parsed = credentialsSchema.safeParse(credentials);
          if (!parsed.success) return null;
          const { email, password } = parsed.data;
          const code = typeof credentials?.code === 'string' ? credentials.code.trim() : '';
          // A passkey's answer instead of a code (lib/auth/passkeys.ts): `{challenge_id, response}` as JSON text.
          const passkeyText = typeof credentials?.passkey === 'string' ? credentials.passkey : '';
          const clientIp = req.headers?.[CLIENT_IP_HEADER];
          const ip = String(clientIp ?? 'unknown');
          const prisma = db();
          return throttledSignIn(prisma, { email, ip }, async () => {
            const user = await prisma.user.findUnique({ where: { email }, include: { memberships: { select: { merchantId: true }, orderBy: { createdAt: 'asc' } }, passkeys: { select: { id: true } } } });
            const ok = await verifyPassword(password, user?.passwordHash ?? null);
            if (!user) return null;
            // Each of the user's stores has in its audit log every sign-in and every wrong password or
            // code given for its member, by the e-mail tried (lib/audit/record.ts). An e-mail no user has
            // is no store's to log; an attempt the throttle refused never reached this check.
            const by = { actor: { kind: 'dashboard' as const, email }, ip: clientIp ? String(clientIp) : null };
            const stores = user.memberships.map((m) => m.merchantId);
            const failed = async (subject?: string) => {
              for (const merchantId of stores) await recordAudit(prisma, by, { merchantId, action: 'sign_in_failed', ...(subject && { subject }) });
            };
            if (!ok) {
              await failed();
              return null;
            }
            // With two-factor sign-in on, the password alone signs in nobody. A thrown error reaches
            // the sign-in form as its `error` (next-auth's credentials flow), and leaves this attempt
            // counted as failed until a complete sign-in clears it, so codes are throttled as passwords are.
            if (hasSecondFactor(user)) {
              // The right password with the code (or passkey) still to ask for is neither a sign-in nor a failure yet.
              if (!code && !passkeyText) throw new Error(TWO_FACTOR_REQUIRED);
              if (passkeyText) {
                const passkey = passkeyResponseFrom(passkeyText);
                if (!passkey || !(await usePasskey(prisma, user, passkey))) {
                  await failed('passkey');
                  throw new Error(WRONG_TWO_FACTOR_CODE);
                }
              } else if (!(await useSecondFactor(prisma, user, code))) {
                await failed('two-factor code');
                throw new Error(WRONG_TWO_FACTOR_CODE);
              }
            }
            // A user whose every membership was removed has no store to open: no session.
            const [store] = stores;
            if (store === undefined) return null;
            await recordAudit(prisma, by, { merchantId: store, action: 'sign_in' });
            return { id: String(user.id), email: user.email };
          });
        },
      }),
    ],
    callbacks: {
      // Where to go after sign-in or sign-out, from the callbackUrl query, form field or cookie, which
      // anyone can set: only a place on the dashboard's own origin (lib/auth/callbackUrl.ts; server.ts
      // drops a bad query or cookie before next-auth, which would answer it with a 500).
      redirect: ({ url, baseUrl }) => sameOriginCallback(url, baseUrl) ?? baseUrl,
      // At sign-in the token records the user's session epoch, the store it opens on (the user's
      // first membership) and the time the password was given. Switching stores (the header's
      // selector, next-auth's session update) moves it to another store the user is a member of.
      async jwt({ token, user, trigger, session }) {
        if (user) {
          const found = await db().user.findUnique({ where: { id: Number(user.id) }, select: { sessionEpoch: true, memberships: { select: { merchantId: true }, orderBy: { createdAt: 'asc' }, take: 1 } } });
          token.epoch = found?.sessionEpoch ?? -1;
          token.storeId = found?.memberships[0]?.merchantId ?? -1;
          token.authAt = Math.floor(Date.now() / 1000);
        }
        if (trigger === 'update') {
          const storeId = Number((session as { storeId?: unknown } | undefined)?.storeId);
          const member = Number.isInteger(storeId) && (await db().membership.findUnique({ where: { userId_merchantId: { userId: Number(token.sub), merchantId: storeId } }, select: { id: true } }));
          if (member) token.storeId = storeId;
        }
        return token;
      },
      // The user id travels as the JWT subject (next-auth sets sub from user.id).
      session({ session, token }) {
        return { ...session, userId: Number(token.sub), storeId: token.storeId, epoch: token.epoch, authAt: token.authAt };
      },
    },
    events: {
      // Signing out ends every session of the user, on every device (issue 14, finding 2):
      // a JWT cannot be recalled, so the epoch it carries is made stale instead.
      async signOut({ token }) {
        const id = Number(token?.sub);
        if (Number.isInteger(id)) await endAllSessions(db(), id);
      },
    },
  };
}

/** Makes every existing session of the user invalid (sign-out, password change). */
async function endAllSessions(prisma: Pick<PrismaClient, 'user'>, userId: number): Promise<void> {
  await prisma.user.updateMany({ where: { id: userId }, data: { sessionEpoch: { increment: 1 } } });
}

export interface SignedIn {
  /** Who signed in, with its passkeys (two-factor sign-in, lib/auth/twoFactor.ts). */
  user: UserWithPasskeys;
  /** The store the dashboard shows, one the user is a member of. */
  merchant: Merchant;
  /** The user's role in that store (lib/auth/roles.ts), as it is now. */
  role: MemberRole;
  /** When the password was last given, Unix seconds. */
  authAt: number;
}

/**
 * The signed-in user, the store it works in, its role there and when it gave its password, or
 * null. Read from the database on every request, so a deleted account, a revoked session (epoch
 * changed since sign-in), a removed membership or a changed role takes effect at the next request.
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
  const userId = session?.userId;
  const storeId = session?.storeId;
  if (!session || !userId || !Number.isInteger(userId) || !storeId || !Number.isInteger(storeId)) return null;
  const membership = await prisma.membership.findUnique({ where: { userId_merchantId: { userId, merchantId: storeId } }, include: { user: { include: { passkeys: PASSKEY_SUMMARY } }, merchant: true } });
  if (!membership || session.epoch !== membership.user.sessionEpoch || !isMemberRole(membership.role)) return null;
  return { user: membership.user, merchant: membership.merchant, role: membership.role, authAt: session.authAt ?? 0 };
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

/** The store the signed-in user works in, or null (see currentSession). */
export async function sessionMerchant(): Promise<Merchant | null> {
  return (await currentSession())?.merchant ?? null;
}
