'use client';

import { useSyncExternalStore, type ComponentProps } from 'react';
import { Button } from './ui';

const noSubscription = () => () => {};

/**
 * A submit button that stays disabled until React has hydrated the form: a
 * click before that would be the browser's native GET submit, which puts the
 * fields (passwords too) in the URL.
 */
export function SubmitButton({ disabled, ...props }: Omit<ComponentProps<typeof Button>, 'type'>) {
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  return <Button type="submit" disabled={disabled || !hydrated} {...props} />;
}
