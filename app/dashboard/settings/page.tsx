import { SettingsPanel } from '@/components/dashboard/SettingsPanel';

export default function SettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Settings</h1>
      <SettingsPanel />
    </>
  );
}
