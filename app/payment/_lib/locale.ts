import { headers } from 'next/headers';
import { messages, pickLocale, type Locale, type Messages } from '@/lib/i18n';

export async function requestLocale(): Promise<{ locale: Locale; t: Messages }> {
  const locale = pickLocale((await headers()).get('accept-language'));
  return { locale, t: messages(locale) };
}
