import { notFound } from '@/lib/errors';
import { errorResponse } from '@/lib/http/errors';

// Any path under /v1/api (and /v1/api itself) that no route matches: a JSON 404, never Next's HTML page.
const unknownRoute = async () => errorResponse(notFound('Not found.'));

export { unknownRoute as GET, unknownRoute as POST, unknownRoute as PUT, unknownRoute as PATCH, unknownRoute as DELETE };
