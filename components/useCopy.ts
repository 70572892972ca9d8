'use client';

import { useEffect, useState } from 'react';

/**
 * Copying `text` to the clipboard for a copy button: `copied` is true for two seconds after a
 * copy, so the button can say so. Shared by the payment page's and the dashboard's buttons.
 */
export function useCopy(text: string): { copied: boolean; copy: () => Promise<void> } {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2_000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // No clipboard (insecure context, denied): the text stays selectable on the page.
    }
  };
  return { copied, copy };
}
