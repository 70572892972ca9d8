import { jsonResponse } from '@/lib/http/errors';
import { openApiDocument } from '@/lib/openapi/document';

// Public: the API's description holds no secret, and tools fetch it from anywhere.
export const GET = async () => jsonResponse(openApiDocument(), 200, { 'access-control-allow-origin': '*' });
