'use client';

import { useQuery } from '@tanstack/react-query';
import type { SettingsJson } from '@/lib/merchants/settings';
import { dashboardApi } from './api';
import { IpWhitelist } from './IpWhitelist';
import { PasswordChange } from './PasswordChange';
import { SettingsForm } from './SettingsForm';
import { TwoFactor } from './TwoFactor';
import { WebhookSecret } from './WebhookSecret';

export function SettingsPanel() {
  const { data, error } = useQuery({ queryKey: ['settings'], queryFn: () => dashboardApi<SettingsJson>('/settings') });
  // The store's settings refused (a store that requires two-factor sign-in, of a member without it):
  // what is the member's own login is still here, so it can set the second factor up.
  if (error) {
    return (
      <>
        <p role="alert">{error.message}</p>
        <PasswordChange />
        <TwoFactor />
      </>
    );
  }
  if (!data) return <p>Loading…</p>;
  return (
    <>
      <SettingsForm settings={data} />
      <WebhookSecret />
      <IpWhitelist rules={data.ip_whitelist} />
      <PasswordChange />
      <TwoFactor />
    </>
  );
}
