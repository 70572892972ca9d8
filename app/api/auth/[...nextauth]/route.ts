import NextAuth from 'next-auth';
import { authOptions, currentSession } from '@/lib/auth/session';

type Context = { params: Promise<{ nextauth: string[] }> };

/** next-auth's answer at /api/auth/session when there is no session. */
const noSession = () => Response.json({}, { headers: { 'cache-control': 'private, no-cache, no-store', pragma: 'no-cache', expires: '0' } });

// Options are read per request (not at import) so that `next build` needs no secret.
const handler = async (req: Request, ctx: Context): Promise<Response> => {
  // next-auth describes any session cookie it can decrypt; one whose session was revoked (sign-out
  // or a password change moved the merchant's epoch on, lib/auth/session.ts) is no session (issue 34).
  if ((await ctx.params).nextauth.join('/') === 'session' && !(await currentSession())) return noSession();
  return NextAuth(req as never, ctx as never, authOptions());
};

export { handler as GET, handler as POST };
