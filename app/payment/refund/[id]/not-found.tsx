import { requestLocale } from '../../_lib/locale';

export default async function RefundNotFound() {
  const { t } = await requestLocale();
  return (
    <main className="mx-auto w-full max-w-md px-4 py-16 text-center">
      <p className="text-5xl font-bold text-slate-500 dark:text-slate-400" aria-hidden="true">404</p>
      <h1 className="mt-4 text-2xl font-semibold">{t.refund.notFoundTitle}</h1>
      <p className="mt-2 text-slate-700 dark:text-slate-300">{t.refund.notFoundText}</p>
    </main>
  );
}
