'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiKeyJson } from '@/lib/auth/apiKeys';
import { MAX_API_KEY_IP_RULES, MAX_API_KEY_LABEL } from '@/lib/auth/limits';
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
    mutationFn: (body: { label: string; scopes: string[]; allowed_ips: string[] }) => dashboardApi<{ key: string }>('/keys', { method: 'POST', body }),
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
  const ipErrors = errorsOf(createErrors, 'allowed_ips');
  const createRefusal = create.error && !createErrors.label && scopeErrors.length === 0 && !ipErrors ? [create.error.message] : undefined;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    // None ticked is sent as it is: the server's refusal says to choose one.
    create.mutate({ label: String(data.get('label')), scopes: data.getAll('scopes').map(String), allowed_ips: ipRules(String(data.get('allowed_ips'))) }, { onSuccess: () => form.reset() });
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
          <Field label="Allowed IP addresses (optional)" name="allowed_ips" placeholder="e.g. 203.0.113.7, 198.51.100.0/24" autoComplete="off" spellCheck={false} hint={IP_HINT} error={ipErrors} />
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
                <th>Allowed from</th>
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
                  <td>
                    <KeyIps apiKey={k} onChanged={refresh} />
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

const IP_HINT = `Addresses or CIDR ranges the key may be used from, separated by commas or spaces; at most ${MAX_API_KEY_IP_RULES}. Empty: wherever the store's IP whitelist allows.`;

/** A typed list of addresses as the server takes it: split at commas and white space. */
function ipRules(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** The messages of a field and of its elements (`allowed_ips`, `allowed_ips[1]`), or undefined. */
function errorsOf(errors: Record<string, string[]>, field: string): string[] | undefined {
  const messages = Object.entries(errors).flatMap(([name, m]) => (name === field || name.startsWith(`${field}[`) ? m : []));
  return messages.length ? messages : undefined;
}

/** Where a key may be used from, and (for a live key) a form to change it: PATCH /keys/:id, guarded as its creation. */
function KeyIps({ apiKey, onChanged }: { apiKey: ApiKeyJson; onChanged: () => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const change = useMutation({
    mutationFn: (allowed_ips: string[]) => dashboardApi<ApiKeyJson>(`/keys/${apiKey.id}`, { method: 'PATCH', body: { allowed_ips } }),
    onSuccess: async () => {
      setEditing(false);
      await onChanged();
    },
  });
  const errors = change.error instanceof RequestError ? change.error.errors : {};
  const fieldMessages = errorsOf(errors, 'allowed_ips');
  const list = apiKey.allowed_ips.length ? (
    <ul aria-label={`Allowed addresses of ${apiKey.label}`} className="flex flex-wrap gap-1">
      {apiKey.allowed_ips.map((rule) => (
        <li key={rule}>
          <Mono>{rule}</Mono>
        </li>
      ))}
    </ul>
  ) : (
    <span className="text-slate-500">Wherever the store allows</span>
  );
  if (apiKey.revoked_at) return list;
  if (!editing) {
    return (
      <div className="flex flex-wrap items-center gap-2">
        {list}
        <Button variant="secondary" aria-label={`Change the allowed addresses of ${apiKey.label}`} onClick={() => setEditing(true)}>
          Change
        </Button>
      </div>
    );
  }
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    change.mutate(ipRules(String(new FormData(e.currentTarget).get('allowed_ips'))));
  }
  const id = `key-${apiKey.id}-ips`;
  return (
    <form onSubmit={submit} aria-label={`Allowed addresses of ${apiKey.label}`} className="space-y-2">
      <Field label="Allowed IP addresses" id={id} name="allowed_ips" defaultValue={apiKey.allowed_ips.join(', ')} autoComplete="off" spellCheck={false} hint="Empty: wherever the store allows." error={fieldMessages} />
      <div className="flex gap-2">
        <SubmitButton disabled={change.isPending}>Save</SubmitButton>
        <Button variant="secondary" onClick={() => setEditing(false)}>
          Cancel
        </Button>
      </div>
      <FieldError messages={change.error && !fieldMessages ? [change.error.message] : undefined} />
    </form>
  );
}
