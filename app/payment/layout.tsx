import type { ReactNode } from 'react';
import { QueryProvider } from '@/components/QueryProvider';
import { requestLocale } from './_lib/locale';

// The root layout's <html lang> is English; this subtree says which language it really is.
export default async function PaymentLayout({ children }: { children: ReactNode }) {
  const { locale } = await requestLocale();
  return (
    <div lang={locale} className="min-h-screen bg-slate-50 dark:bg-slate-950">
      <QueryProvider>{children}</QueryProvider>
    </div>
  );
}
