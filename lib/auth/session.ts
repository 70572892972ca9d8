import type { AuthOptions } from 'next-auth';
import { getServerSession } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { publicBaseUrl } from '@/lib/config';
import { db } from '@/lib/db/client';
import { parseSessionEnv } from './sessionEnv';
import type { Merchant } from '@/lib/generated/prisma/client';
import { CLIENT_IP_HEADER } from '@/lib/http/request';
import { verifyPassword } from './passwords';
import { credentialsSchema } from './signup';
import { throttledSignIn } from './signInThrottle';


declare module 'next-auth' {
  interface Session {
    merchantId?: number;
  }
}

const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

let cached: AuthOptions | undefined;

/**
 * next-auth options, built on first use rather than at import so that
 * `next build` does not need the secret.
 */
export function authOptions(): AuthOptions {
  if (cached) return cached;
  const env = parseSessionEnv(process.env);
  cached = {
    secret: env.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    // __Secure- cookie names and the Secure flag whenever the dashboard is served over https.
    useSecureCookies: (env.NEXTAUTH_URL ?? publicBaseUrl()).startsWith('https://'),
    pages: { signIn: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'E-mail and password',
        credentials: { email: { label: 'E-mail', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, req) {
          const parsed = credentialsSchema.safeParse(credentials);
          if (!parsed.success) return null;
          const { email, password } = parsed.data;
          const ip = String(req.headers?.[CLIENT_IP_HEADER] ?? 'unknown');
          const prisma = db();
          return throttledSignIn(prisma, { email, ip }, async () => {
            const merchant = await prisma.merchant.findUnique({ where: { email }, select: { id: true, email: true, passwordHash: true } });
            const ok = await verifyPassword(password, merchant?.passwordHash ?? null);
            return ok && merchant ? { id: String(merchant.id), email: merchant.email } : null;
          });
        },
      }),
    ],
    callbacks: {
      // The merchant id travels as the JWT subject (next-auth sets sub from user.id).
      session({ session, token }) {
        return { ...session, merchantId: Number(token.sub) };
      },
    },
  };
  return cached;
}

/** The signed-in merchant, or null. Read from the database so a deleted account loses access at once. */
export async function sessionMerchant(): Promise<Merchant | null> {
  const id = (await getServerSession(authOptions()))?.merchantId;
  if (!id || !Number.isInteger(id)) return null;
  return db().merchant.findUnique({ where: { id } });
}
