import NextAuth from 'next-auth';
import { authOptions, currentSession } from '@/lib/auth/session';

type Context = { params: Promise<{ nextauth: string[] }> };

/** The session cookie, under either of next-auth's names (`__Secure-` over HTTPS). */
const SESSION_COOKIE = /^(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;

// Options are read per request (not at import) so that `next build` needs no secret.
const handler = async (req: Request, ctx: Context): Promise<Response> => {
  const answer = (await NextAuth(req as never, ctx as never, authOptions())) as Response;
  if ((await ctx.params).nextauth.join('/') !== 'session' || (await currentSession())) return answer;
  // next-auth describes any session cookie it can decrypt; one whose session was revoked (sign-out
  // or a password change moved the merchant's epoch on, lib/auth/session.ts) is no session (issue 34):
  // next-auth's answer for none, `{}`, with the headers it set (its callback-url cookie, no-store),
  // but not the revoked session's cookie renewed.
  const headers = new Headers();
  for (const [name, value] of answer.headers) if (name !== 'set-cookie' && name !== 'content-length') headers.set(name, value);
  for (const cookie of answer.headers.getSetCookie()) if (!SESSION_COOKIE.test(cookie)) headers.append('set-cookie', cookie);
  return Response.json({}, { status: answer.status, headers });
};

export { handler as GET, handler as POST };
