/** Downloads the list as CSV with the filters on screen; the server streams it (docs/dashboard.md "Exports"). */
export function ExportCsvLink({ href }: { href: string }) {
  return (
    <a
      href={href}
      download
      className="rounded border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-900"
    >
      Export CSV
    </a>
  );
}
