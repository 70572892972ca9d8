import { Team } from '@/components/dashboard/Team';

export default function TeamPage() {
  return (
    <>
      <h1 className="text-2xl font-semibold">Team</h1>
      <Team />
    </>
  );
}
