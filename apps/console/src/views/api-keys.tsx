import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { createApiKeyRequestScopesValues as SCOPES } from '../api/schema.generated';
import { CopyButton } from '../components/copy-button';
import { describedBy, Field } from '../components/form-field';
import { ListPanel } from '../components/list-panel';
import { ErrorNotice } from '../components/notices';
import { formatShortTime } from '../presentation/format';
import { scopeDescription } from '../presentation/scopes';

type Scope = (typeof SCOPES)[number];

export function ApiKeysView() {
  const [created, setCreated] = useState<Schemas['CreatedApiKey']>();
  return (
    <>
      <h1>API keys</h1>
      <CreateKey onCreated={setCreated} />
      {created ? (
        <section className="notice ok" aria-labelledby="new-key-title">
          <h2 id="new-key-title">New key{created.name ? ` “${created.name}”` : ''}: copy it now</h2>
          <p>It is shown this once; the service keeps only a digest of it.</p>
          <p className="secret" data-testid="new-api-key">
            {created.api_key}
          </p>
          <div className="row">
            <CopyButton text={created.api_key} label="Copy key" />
            <button type="button" onClick={() => setCreated(undefined)}>
              I have saved it
            </button>
          </div>
        </section>
      ) : null}
      <KeyList />
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: Schemas['CreatedApiKey']) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['conversations:read']);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/api-keys', { body: { scopes, ...(name.trim() ? { name: name.trim() } : {}) } })),
    onSuccess: async (result) => {
      onCreated(result.data);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;
  const nameError = problem?.field === 'name' ? problem.message : undefined;
  const scopesError = problem?.field?.startsWith('scopes') ? problem.message : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="narrow-form" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <Field id="key-name" label="Name" error={nameError} hint="Optional: what the key is for">
        <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" {...describedBy('key-name', nameError, 'Optional: what the key is for')} />
      </Field>
      <fieldset aria-describedby={scopesError ? 'key-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <div className="field check" key={scope}>
            <input
              id={`scope-${scope}`}
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes((s) => (e.target.checked ? [...s, scope] : s.filter((x) => x !== scope)))}
            />
            <label htmlFor={`scope-${scope}`}>
              <code>{scope}</code> <span className="muted">{scopeDescription(scope)}</span>
            </label>
          </div>
        ))}
        {scopesError ? (
          <p id="key-scopes-error" className="field-error" role="alert">
            {scopesError}
          </p>
        ) : null}
      </fieldset>
      {problem && !nameError && !scopesError ? <ErrorNotice error={problem} title="The key could not be created" /> : null}
      <button type="submit" className="primary" disabled={create.isPending}>
        Create key
      </button>
    </form>
  );
}

const KEY_COLUMNS = ['Name', 'Prefix', 'Scopes', 'Created (UTC)', 'Last used (UTC)', 'State'];

function KeyList() {
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ['api-keys', page],
    queryFn: () => unwrap(api.GET('/v1/api-keys', { params: { query: { page, per_page: 25 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      <ListPanel
        query={query}
        loadingWhat="API keys"
        errorTitle="The keys could not be loaded"
        noun="keys"
        page={page}
        onPage={setPage}
        label="API keys"
        columns={KEY_COLUMNS}
        itemKey={(key) => key.id}
        row={(key) => <KeyRow apiKey={key} />}
      />
    </section>
  );
}

function KeyRow({ apiKey: key }: { apiKey: Schemas['ApiKey'] }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const label = key.name ?? key.prefix;
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  return (
    <tr>
      <th scope="row">{key.name ?? <span className="muted">unnamed</span>}</th>
      <td>
        <code>{key.prefix}…</code>
      </td>
      <td className="wrap scopes">
        {key.scopes.map((scope) => (
          <code key={scope} title={scopeDescription(scope)}>
            {scope}
          </code>
        ))}
      </td>
      <td>{formatShortTime(key.created_at)}</td>
      <td>{formatShortTime(key.last_used_at)}</td>
      <td>
        {key.revoked_at ? (
          <span className="muted">Revoked {formatShortTime(key.revoked_at)}</span>
        ) : confirming ? (
          <span className="row" role="group" aria-label={`Confirm revoking ${label}`}>
            <button type="button" className="danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
              Confirm revoke
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirming(true)} aria-label={`Revoke ${label}`}>
            Revoke
          </button>
        )}
        {revoke.isError ? <ErrorNotice error={revoke.error} title="Revoke failed" /> : null}
      </td>
    </tr>
  );
}
