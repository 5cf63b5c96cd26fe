import { useState, type FormEvent } from 'react';
import { api, type SourceDetail } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { friendlyError } from '../../lib/form-error.js';
import {
  DraftError,
  documentsDraftOf,
  filesDraftOf,
  fileSourcePatch,
  fileSourcePayload,
  previewRequest,
  previewTable,
  type FileDraft,
} from '../../lib/file-source-form.js';
import { toSourcePatch } from '../../lib/source-edit.js';
import { FormFooter } from '../FormFooter.js';
import { ConnectionOptions } from './ConnectionOptions.js';
import { DocumentTablesFields } from './DocumentTablesFields.js';
import { FileTablesFields } from './FileTablesFields.js';
import { SourcePreview } from './SourcePreview.js';

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
  const [files, setFiles] = useState(() => filesDraftOf(opts.files, source.file));
  const [documents, setDocuments] = useState(() => documentsDraftOf(opts.documents));
  const [headers, setHeaders] = useState('');
  const [active, setActive] = useState(0);
  const draft: FileDraft | undefined =
    source.engine === 'duckdb'
      ? { engine: 'duckdb', files }
      : source.engine === 'documents'
        ? { engine: 'documents', documents, headers }
        : undefined;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = Object.fromEntries([...new FormData(e.currentTarget)].map(([k, v]) => [k, String(v)]));
    let patch;
    try {
      patch = draft
        ? fileSourcePatch(draft.engine, source, fileSourcePayload(source.name, draft))
        : toSourcePatch(source, { poolMax: '', connectTimeoutMs: '', ca: '', ...f });
    } catch (err) {
      if (!(err instanceof DraftError)) throw err;
      setError(err.message);
      return;
    }
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
    <form
      className="j-card j-source-form"
      onSubmit={submit}
      aria-label={`Edit source ${source.name}`}
      autoComplete="off"
    >
      <h2>Edit {source.name}</h2>
      <div className="j-form-grid">
        {draft?.engine === 'duckdb' ? (
          <FileTablesFields draft={files} onChange={setFiles} active={active} onActive={setActive} />
        ) : draft?.engine === 'documents' ? (
          <DocumentTablesFields
            draft={documents}
            onChange={setDocuments}
            headers={headers}
            onHeaders={setHeaders}
            hasHeaders={source.hasPassword}
            active={active}
            onActive={setActive}
          />
        ) : sqlite ? (
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
        {/* stored headers stay on the server: a URL table that needs them previews once they are typed again */}
        {draft && <SourcePreview request={previewRequest(source.name, draft, previewTable(draft, active))} />}
      </div>
      <FormFooter error={error} busy={busy} submit="Save" busyText="Testing and saving…" onDismiss={onClose} />
    </form>
  );
}
