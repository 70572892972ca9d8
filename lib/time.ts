/**
 * ISO 8601 with microseconds and an explicit UTC offset, as the spec's samples
 * show ("2024-05-01T10:00:00.123000+00:00"). JS dates carry milliseconds, so the
 * last three digits are zero.
 */
export function isoMicro(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

const DAY_MS = 86_400_000;

/** Start of a YYYY-MM-DD day in UTC, and the start of the day after (for inclusive "to" dates). */
export function dayStartUtc(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

export function nextDayStartUtc(day: string): Date {
  return new Date(dayStartUtc(day).getTime() + DAY_MS);
}
