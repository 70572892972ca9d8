'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { MEMBER_ROLE_DESCRIPTIONS, MEMBER_ROLES, type MemberRole } from '@/lib/auth/roles';
import type { InvitationJson, NewInvitation } from '@/lib/merchants/invitations';
import type { MemberJson, MemberListJson } from '@/lib/merchants/members';
import type { SettingsJson } from '@/lib/merchants/settings';
import { SubmitButton } from './SubmitButton';
import { dashboardApi, RequestError } from './api';
import { Card, ConfirmButton, Facts, Field, FieldError, Mono, Select, TableBox, formatTime, tableClass } from './ui';

/** The per-member role select: as the form fields look, sized to its options (a table cell has no width to fill). */
const roleSelectClass = 'rounded-md border border-slate-300 bg-white px-2 py-1 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-slate-700 dark:bg-slate-900';

interface MembersJson {
  results: MemberListJson[];
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
      {you && <StoreTwoFactor isOwner={isOwner} onChanged={refresh} />}
      {isOwner && <Invite />}
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
                <th>Two-factor</th>
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
                  <td>{m.two_factor ? 'On' : 'Off'}</td>
                  <td>{formatTime(m.created_at)}</td>
                  {isOwner && (
                    <td className="text-right">
                      <ConfirmButton variant="danger" aria-label={`Remove ${m.email}`} disabled={remove.isPending} confirm={`Remove ${m.email} from this store? Their access ends at once.`} onConfirm={() => remove.mutate(m.user_id)}>
                        Remove
                      </ConfirmButton>
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

/** The owner's invitation form and the pending invitations; the link is shown here when it was not e-mailed. */
function Invite() {
  const client = useQueryClient();
  const [sent, setSent] = useState<NewInvitation | null>(null);
  const pending = useQuery({ queryKey: ['invitations'], queryFn: () => dashboardApi<{ results: InvitationJson[] }>('/members/invitations') });
  const invite = useMutation({
    mutationFn: (body: { email: string; role: string }) => dashboardApi<NewInvitation>('/members/invitations', { method: 'POST', body }),
    onSuccess: (d) => {
      setSent(d);
      return client.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const cancel = useMutation({
    mutationFn: (id: number) => dashboardApi(`/members/invitations/${id}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const errors = invite.error instanceof RequestError ? invite.error.errors : {};
  const refusal = invite.error && !errors.email && !errors.role ? [invite.error.message] : undefined;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    invite.mutate({ email: String(data.get('email')), role: String(data.get('role')) }, { onSuccess: () => form.reset() });
  }

  return (
    <Card title="Invite a member">
      <form onSubmit={submit} className="space-y-3">
        <Field label="E-mail" name="email" type="email" required error={errors.email} />
        <Select label="Role" id="invite_role" name="role" defaultValue="support">
          {MEMBER_ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        <SubmitButton disabled={invite.isPending}>Send invitation</SubmitButton>
      </form>
      <FieldError messages={refusal ?? errors.role} />
      {sent && (
        <div role="status" className="mt-4 rounded-md border border-slate-300 p-3 text-sm dark:border-slate-700">
          {sent.emailed ? (
            <p>
              Invitation e-mailed to {sent.email} ({sent.role}); it expires {formatTime(sent.expires_at)}.
            </p>
          ) : (
            <>
              <p className="mb-1">
                No e-mail is configured: send {sent.email} this link yourself. It works once, until {formatTime(sent.expires_at)}, and is not shown again.
              </p>
              <output aria-label="Invitation link" className="block break-all">
                <Mono>{sent.link}</Mono>
              </output>
            </>
          )}
        </div>
      )}
      {(pending.data?.results.length ?? 0) > 0 && (
        <TableBox label="Pending invitations">
          <table className={tableClass} aria-label="Pending invitations">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Invited by</th>
                <th>Expires</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pending.data?.results.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{i.invited_by}</td>
                  <td>{formatTime(i.expires_at)}</td>
                  <td className="text-right">
                    <ConfirmButton variant="secondary" aria-label={`Cancel the invitation of ${i.email}`} disabled={cancel.isPending} confirm={`Cancel the invitation of ${i.email}? Its link stops working.`} onConfirm={() => cancel.mutate(i.id)}>
                      Cancel
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <FieldError messages={cancel.error ? [cancel.error.message] : undefined} />
    </Card>
  );
}

/**
 * Whether the store requires two-factor sign-in of every member (issue 40): an owner turns it on
 * or off here (PATCH /settings, a recent sign-in or the password; refused while the owner has no
 * second factor itself, said under the box); everyone else reads it.
 */
function StoreTwoFactor({ isOwner, onChanged }: { isOwner: boolean; onChanged: () => Promise<void> }) {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => dashboardApi<SettingsJson>('/settings') });
  const change = useMutation({
    mutationFn: (require_two_factor: boolean) => dashboardApi<SettingsJson>('/settings', { method: 'PATCH', body: { require_two_factor } }),
    onSuccess: async (saved) => {
      client.setQueryData(['settings'], saved);
      await onChanged();
    },
  });
  const required = settings.data?.require_two_factor;
  if (required === undefined) return null;
  return (
    <Card title="Two-factor sign-in for every member">
      {isOwner ? (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5 h-4 w-4" checked={required} disabled={change.isPending} onChange={(e) => change.mutate(e.target.checked)} aria-describedby="require-two-factor-hint" />
          <span>Require two-factor sign-in</span>
        </label>
      ) : (
        <p className="text-sm">{required ? 'This store requires two-factor sign-in of every member.' : 'This store does not require two-factor sign-in.'}</p>
      )}
      <p id="require-two-factor-hint" className="mt-1 text-xs text-slate-500 dark:text-slate-400">
        A member without it can sign in, but sees nothing of the store until it has set up two-factor sign-in in Settings. The list below says who has.
      </p>
      <FieldError messages={change.error ? [change.error.message] : undefined} />
    </Card>
  );
}
