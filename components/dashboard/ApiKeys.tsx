'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiKeyJson } from '@/lib/auth/apiKeys';
import { MAX_API_KEY_LABEL } from '@/lib/auth/limits';
import { API_KEY_SCOPES, API_KEY_SCOPE_DESCRIPTIONS } from '@/lib/auth/scopes';
import { dashboardApi, RequestError } from './api';
import { SubmitButton } from './SubmitButton';
import { Button, Card, ConfirmButton, Field, FieldError, Mono, TableBox, formatTime, tableClass } from './ui';

export function ApiKeys() {
  const client = useQueryClient();
  const [created, setCreated] = useState<string | null>(null);
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => dashboardApi<ApiKeyJson[]>('/keys') });
  const refresh = () => client.invalidateQueries({ queryKey: ['keys'] });
  const create = useMutation({
    mutationFn: (body: { label: string; scopes: string[] }) => dashboardApi<{ key: string }>('/keys', { method: 'POST', body }),
    onSuccess: (d) => {
      setCreated(d.key);
      return refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: number) => dashboardApi<void>(`/keys/${id}`, { method: 'DELETE' }), onSuccess: refresh });

  // A refusal that names the label or the scopes is shown under it; any other (a cancelled or wrong
  // password, 403; too many requests, 429; a server error) under the form, never swallowed (issue 26).
  const createErrors = create.error instanceof RequestError ? create.error.errors : {};
  const scopeErrors = Object.entries(createErrors).flatMap(([field, messages]) => (field === 'scopes' || field.startsWith('scopes[') ? messages : []));
  const createRefusal = create.error && !createErrors.label && scopeErrors.length === 0 ? [create.error.message] : undefined;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    // None ticked is sent as it is: the server's refusal says to choose one.
    create.mutate({ label: String(data.get('label')), scopes: data.getAll('scopes').map(String) }, { onSuccess: () => form.reset() });
  }

  return (
    <>
      <Card title="Create an API key">
        <form onSubmit={submit} className="space-y-3">
          <Field label="Label" name="label" placeholder="e.g. shop backend" required maxLength={MAX_API_KEY_LABEL} error={createErrors.label} />
          {/* Every scope ticked by default: a key made without thinking about it works as keys always did. */}
          <fieldset aria-describedby={scopeErrors.length ? 'key-scopes-error' : undefined}>
            <legend className="block text-sm font-medium">Scopes: what the key may call</legend>
            <div className="mt-2 space-y-1">
              {API_KEY_SCOPES.map((scope) => (
                <label key={scope} className="flex items-start gap-2 text-sm">
                  <input type="checkbox" name="scopes" value={scope} defaultChecked className="mt-0.5 h-4 w-4" />
                  <span>
                    <Mono>{scope}</Mono> <span className="text-slate-600 dark:text-slate-400">{API_KEY_SCOPE_DESCRIPTIONS[scope]}</span>
                  </span>
                </label>
              ))}
            </div>
            <FieldError id="key-scopes-error" messages={scopeErrors.length ? scopeErrors : undefined} />
          </fieldset>
          <SubmitButton disabled={create.isPending}>
            Create key
          </SubmitButton>
        </form>
        <FieldError id="create-key-error" messages={createRefusal} />
        {created && (
          <div role="status" className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950">
            <p className="mb-1 text-sm font-medium">Copy this key now; it is not shown again.</p>
            <output aria-label="New API key" className="block">
              <Mono>{created}</Mono>
            </output>
            <div className="mt-2 flex gap-2">
              <Button variant="secondary" onClick={() => navigator.clipboard.writeText(created)}>
                Copy
              </Button>
              <Button variant="secondary" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          </div>
        )}
      </Card>
      <Card title="Keys">
        <TableBox label="API keys">
          <table className={tableClass} aria-label="API keys">
            <thead>
              <tr>
                <th>Label</th>
                <th>Prefix</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.map((k) => (
                <tr key={k.id}>
                  <td>{k.label}</td>
                  <td>
                    <Mono>{k.prefix}…</Mono>
                  </td>
                  <td>
                    <ul aria-label={`Scopes of ${k.label}`} className="flex flex-wrap gap-1">
                      {k.scopes.map((scope) => (
                        <li key={scope}>
                          <Mono>{scope}</Mono>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{formatTime(k.last_used_at)}</td>
                  <td className="text-right">
                    {k.revoked_at ? (
                      <span className="text-slate-500">Revoked {formatTime(k.revoked_at)}</span>
                    ) : (
                      <ConfirmButton variant="danger" aria-label={`Revoke ${k.label}`} disabled={revoke.isPending} confirm={`Revoke "${k.label}"? Calls with it will be refused.`} onConfirm={() => revoke.mutate(k.id)}>
                        Revoke
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
        {keys.data?.length === 0 && <p className="text-sm text-slate-500">No keys yet.</p>}
        <FieldError messages={[keys.error, revoke.error].filter((e) => e !== null).map((e) => e.message)} />
      </Card>
    </>
  );
}
