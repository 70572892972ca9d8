import { cookies, headers } from 'next/headers';
import { isLocale, LOCALE_COOKIE, messages, pickLocale, type Locale, type Messages } from '@/lib/i18n';

/** The language picked on the page (its cookie), else the browser's Accept-Language. */
export async function requestLocale(): Promise<{ locale: Locale; t: Messages }> {
  const chosen = (await cookies()).get(LOCALE_COOKIE)?.value;
  const locale = isLocale(chosen) ? chosen : pickLocale((await headers()).get('accept-language'));
  return { locale, t: messages(locale) };
}
