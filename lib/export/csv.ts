/**
 * CSV for spreadsheets (RFC 4180: comma, CRLF, quotes doubled), safe to open in
 * Excel, LibreOffice and Google Sheets: a cell a spreadsheet would read as a
 * formula (starting with = + - @, or a tab or carriage return that hides one)
 * is prefixed with a single quote (OWASP "CSV injection"). Merchants' customers
 * choose order ids and descriptions, so every text cell is untrusted.
 */
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (cells: readonly CsvCell[]) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * A streamed CSV body: the header, then the rows of each batch as the client
 * reads them (pull: the next batch is fetched only when the previous one has
 * been taken, so memory holds one batch whatever the export's size). A UTF-8
 * BOM first, so Excel reads non-ASCII text right.
 */
export function csvStream<T>(header: readonly string[], batches: AsyncIterable<T[]>, row: (item: T) => readonly CsvCell[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = batches[Symbol.asyncIterator]();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`\uFEFF${csvLine(header)}`));
        return;
      }
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value.map((item) => csvLine(row(item))).join('')));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
