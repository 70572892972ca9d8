import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { merchantApi } from '@/lib/http/api';
import { REQUEST_ID_HEADER, requestIdFrom } from '@/lib/log';

/**
 * The whole merchant API through Next: the same router server.ts calls directly
 * (lib/http/api), for `npm run dev`, where Next reloads it on save, and API_ROUTER=next.
 * Next's route handlers cannot see the socket, so the edge's meta comes in the headers
 * server.ts sets (a client's own copies are overwritten there).
 */
const handle = (req: Request) => merchantApi().handle(req, { ip: req.headers.get(CLIENT_IP_HEADER), requestId: requestIdFrom(req.headers.get(REQUEST_ID_HEADER)) });

export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
