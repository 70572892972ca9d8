'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MEMBER_ROLE_DESCRIPTIONS, MEMBER_ROLES, type MemberRole } from '@/lib/auth/roles';
import type { MemberJson } from '@/lib/merchants/members';
import { dashboardApi } from './api';
import { Button, Card, Facts, FieldError, TableBox, formatTime, tableClass } from './ui';

/** The per-member role select: as the form fields look, sized to its options (a table cell has no width to fill). */
const roleSelectClass = 'rounded-md border border-slate-300 bg-white px-2 py-1 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-slate-700 dark:bg-slate-900';

interface MembersJson {
  results: MemberJson[];
  you: { user_id: number; role: MemberRole };
}

/**
 * The store's team (issue 40, docs/dashboard.md "Members and roles"): every member sees who is in
 * the store and with which role; an owner changes a role or removes a member (the server refuses
 * anyone else, and the last owner's removal or demotion, with a message shown here).
 */
export function Team() {
  const client = useQueryClient();
  const members = useQuery({ queryKey: ['members'], queryFn: () => dashboardApi<MembersJson>('/members') });
  const refresh = () => client.invalidateQueries({ queryKey: ['members'] });
  const change = useMutation({ mutationFn: ({ userId, role }: { userId: number; role: MemberRole }) => dashboardApi<MemberJson>(`/members/${userId}`, { method: 'PATCH', body: { role } }), onSettled: refresh });
  const remove = useMutation({ mutationFn: (userId: number) => dashboardApi<void>(`/members/${userId}`, { method: 'DELETE' }), onSettled: refresh });
  const you = members.data?.you;
  const isOwner = you?.role === 'owner';

  return (
    <>
      <Card title="Members">
        {you && !isOwner && (
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
            Your role here is <strong>{you.role}</strong>: only an owner changes the team.
          </p>
        )}
        <TableBox label="Members">
          <table className={tableClass} aria-label="Members">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Member since</th>
                {isOwner && (
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.data?.results.map((m) => (
                <tr key={m.user_id}>
                  <td>
                    {m.email}
                    {m.user_id === you?.user_id && <span className="text-slate-500"> (you)</span>}
                  </td>
                  <td>
                    {isOwner ? (
                      <select aria-label={`Role of ${m.email}`} className={roleSelectClass} value={m.role} disabled={change.isPending} onChange={(e) => change.mutate({ userId: m.user_id, role: e.target.value as MemberRole })}>
                        {MEMBER_ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{formatTime(m.created_at)}</td>
                  {isOwner && (
                    <td className="text-right">
                      <Button variant="danger" aria-label={`Remove ${m.email}`} disabled={remove.isPending} onClick={() => window.confirm(`Remove ${m.email} from this store? Their access ends at once.`) && remove.mutate(m.user_id)}>
                        Remove
                      </Button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
        <FieldError messages={[members.error, change.error, remove.error].filter((e) => e !== null).map((e) => e.message)} />
      </Card>
      <Card title="Roles">
        <Facts label="Roles" rows={MEMBER_ROLES.map((r) => [r, MEMBER_ROLE_DESCRIPTIONS[r]])} />
      </Card>
    </>
  );
}
