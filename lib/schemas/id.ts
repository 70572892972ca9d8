/** A numeric id from a path segment, or null for anything else (the API and the payment page read ids alike). */
export function parseId(value: string): number | null {
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}
