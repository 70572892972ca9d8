import { en, type Messages } from './en';
import { es } from './es';

export const LOCALES = ['en', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
const DEFAULT_LOCALE: Locale = 'en';

/** Each language's name in itself, for the payment page's language picker. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', es: 'Español' };

/** The cookie the picker sets (path /payment); it wins over Accept-Language. */
export const LOCALE_COOKIE = 'payment_lang';

export function isLocale(v: string | null | undefined): v is Locale {
  return (LOCALES as readonly (string | null | undefined)[]).includes(v);
}

const DICTIONARIES: Record<Locale, Messages> = { en, es };

export function messages(locale: Locale): Messages {
  return DICTIONARIES[locale];
}

/**
 * The best supported language of an Accept-Language header ("es-AR,es;q=0.9,en;q=0.8"):
 * highest q first, header order on ties, a region matching its base language.
 */
export function pickLocale(acceptLanguage: string | null | undefined): Locale {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { base: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index };
    })
    .filter((r) => r.q > 0 && !Number.isNaN(r.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((r) => r.base).find((b): b is Locale => (LOCALES as readonly string[]).includes(b)) ?? DEFAULT_LOCALE;
}

export { fill } from './fill';
export type { Messages };
