/** The download response; the filename says what and when. */
export function csvResponse(name: string, body: ReadableStream<Uint8Array>): Response {
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${name}-${day}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
