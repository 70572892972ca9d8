import NextAuth from 'next-auth';
import { authOptions } from '@/lib/auth/session';

type Context = { params: Promise<{ nextauth: string[] }> };

// Options are read per request (not at import) so that `next build` needs no secret.
const handler = (req: Request, ctx: Context): Promise<Response> => NextAuth(req as never, ctx as never, authOptions());

export { handler as GET, handler as POST };
