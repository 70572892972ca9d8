import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '@/lib/errors';
import { errorResponse } from '@/lib/http/errors';

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** The only files served, from the swagger-ui-dist package (the server runs from the project directory). */
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export async function GET(_req: Request, { params }: { params: Promise<{ asset: string }> }) {
  const { asset } = await params;
  if (asset === 'init.js') return new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  const type = FILES[asset];
  if (!type) return errorResponse(notFound('Not found.'));
  const body = await readFile(path.join(process.cwd(), 'node_modules', 'swagger-ui-dist', asset));
  return new Response(new Uint8Array(body), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });
}
