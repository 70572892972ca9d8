import { randomUUID } from 'node:crypto';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { merchantApi } from '@/lib/http/api';
import { CLIENT_REQUEST_ID, REQUEST_ID_HEADER } from '@/lib/log';

/**
 * The whole merchant API through Next: the same router server.ts calls directly
 * (lib/http/api), for `npm run dev`, where Next reloads it on save, and API_ROUTER=next.
 * Next's route handlers cannot see the socket, so the edge's meta comes in the headers
 * server.ts sets (a client's own copies are overwritten there).
 */
const handle = (req: Request) => {
  const given = req.headers.get(REQUEST_ID_HEADER);
  return merchantApi().handle(req, { ip: req.headers.get(CLIENT_IP_HEADER), requestId: given && CLIENT_REQUEST_ID.test(given) ? given : randomUUID() });
};

export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
