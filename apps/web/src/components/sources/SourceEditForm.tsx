import { useState, type FormEvent } from 'react';
import { api, type SourceDetail } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { friendlyError } from '../../lib/form-error.js';
import { toSourcePatch } from '../../lib/source-edit.js';
import { FormFooter } from '../FormFooter.js';
import { ConnectionOptions } from './ConnectionOptions.js';

const LABELS = {
  host: 'Host',
  port: 'Port',
  database: 'Database',
  user: 'User',
  file: 'File path',
  max: 'Pool size',
  connectTimeoutMs: 'Connect timeout',
};

/** Change a source in place: the API tests the new settings and swaps the pool, no delete and re-add. */
export function SourceEditForm({
  source,
  onSaved,
  onClose,
}: {
  source: SourceDetail;
  onSaved(d: SourceDetail): void;
  onClose(): void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const opts = source.options ?? {};

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = Object.fromEntries([...new FormData(e.currentTarget)].map(([k, v]) => [k, String(v)]));
    const patch = toSourcePatch(source, { poolMax: '', connectTimeoutMs: '', ca: '', ...f });
    if (Object.keys(patch).length === 0) {
      onClose();
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      onSaved(await api.updateSource(source.id, patch));
    } catch (err) {
      const code = err instanceof ApiError ? err.details?.diagnosis : undefined;
      setError(friendlyError(err, LABELS) + (typeof code === 'string' ? ` (${code})` : ''));
    } finally {
      setBusy(false);
    }
  }

  const sqlite = source.engine === 'sqlite';
  return (
    <form className="j-card" onSubmit={submit} aria-label={`Edit source ${source.name}`} autoComplete="off">
      <h2>Edit {source.name}</h2>
      <div className="j-form-grid">
        {sqlite ? (
          <label className="j-wide">
            {LABELS.file}
            <input name="file" required defaultValue={source.file ?? ''} />
          </label>
        ) : (
          <>
            <label>
              {LABELS.host}
              <input name="host" required defaultValue={source.host ?? ''} />
            </label>
            <label>
              {LABELS.port}
              <input name="port" type="number" min={1} max={65535} defaultValue={source.port ?? ''} />
            </label>
            <label>
              {LABELS.database}
              <input name="database" required defaultValue={source.database ?? ''} />
            </label>
            <label>
              {LABELS.user}
              <input name="user" required defaultValue={source.user ?? ''} />
            </label>
            <label>
              Password
              <input
                name="password"
                type="password"
                autoComplete="new-password"
                placeholder={source.hasPassword ? 'unchanged' : 'none set'}
              />
            </label>
            <ConnectionOptions options={opts} />
          </>
        )}
      </div>
      <FormFooter error={error} busy={busy} submit="Save" busyText="Testing and saving…" onDismiss={onClose} />
    </form>
  );
}
