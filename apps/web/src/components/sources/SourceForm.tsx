import { useState, type FormEvent } from 'react';
import { api, type Engine, type Source } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { friendlyError } from '../../lib/form-error.js';
import {
  DraftError,
  emptyDocumentsDraft,
  emptyFilesDraft,
  fileSourcePayload,
  previewRequest,
  previewTable,
  type FileDraft,
} from '../../lib/file-source-form.js';
import { DEFAULT_PORTS, ENGINE_LABELS, isFileEngine, toNewSource } from '../../lib/source-form.js';
import { FormFooter } from '../FormFooter.js';
import { ConnectionOptions } from './ConnectionOptions.js';
import { DocumentTablesFields } from './DocumentTablesFields.js';
import { FileTablesFields } from './FileTablesFields.js';
import { SourcePreview } from './SourcePreview.js';

const LABELS = {
  name: 'Name',
  host: 'Host',
  port: 'Port',
  database: 'Database',
  file: 'File path',
  user: 'User',
  max: 'Pool size',
  connectTimeoutMs: 'Connect timeout',
};

/** Register a source; the password is write-only: sent once, never read back or shown. */
export function SourceForm({ onCreated, onClose }: { onCreated(s: Source): void; onClose(): void }) {
  const [engine, setEngine] = useState<Engine>('postgresql');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // file and document sources: their tables are edited as state (the preview follows every keystroke)
  const [name, setName] = useState('');
  const [files, setFiles] = useState(emptyFilesDraft);
  const [documents, setDocuments] = useState(emptyDocumentsDraft);
  const [headers, setHeaders] = useState('');
  const [active, setActive] = useState(0);
  const draft: FileDraft | undefined =
    engine === 'duckdb' ? { engine, files } : engine === 'documents' ? { engine, documents, headers } : undefined;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const fields = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v)]));
    let body;
    try {
      body = draft
        ? fileSourcePayload(fields.name.trim(), draft)
        : toNewSource({ host: '', port: '', database: '', user: '', password: '', ...fields });
    } catch (err) {
      if (!(err instanceof DraftError)) throw err;
      setError(err.message);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.createSource(body);
      form.reset();
      onCreated(created);
    } catch (err) {
      setError(err instanceof ApiError && err.code !== 'validation' ? withDiagnosis(err) : friendlyError(err, LABELS));
    } finally {
      setBusy(false);
    }
  }

  const server = engine !== 'sqlite' && !isFileEngine(engine);
  return (
    <form className="j-card j-source-form" onSubmit={submit} aria-label="Register a source" autoComplete="off">
      <h2>Register a source</h2>
      <div className="j-form-grid">
        <label>
          Name
          <input
            name="name"
            required
            onChange={(e) => setName(e.target.value)}
            pattern="[A-Za-z_][A-Za-z0-9_]*"
            title="Letters, digits and _; used in SQL as name.table"
          />
        </label>
        <label>
          Engine
          <select
            name="engine"
            value={engine}
            onChange={(e) => {
              setEngine(e.target.value as Engine);
              setActive(0);
            }}
          >
            {(Object.keys(ENGINE_LABELS) as Engine[]).map((k) => (
              <option key={k} value={k}>
                {ENGINE_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        {server && (
          <>
            <label>
              Host
              <input name="host" required defaultValue="127.0.0.1" />
            </label>
            <label>
              Port
              <input name="port" type="number" min={1} max={65535} placeholder={String(DEFAULT_PORTS[engine] ?? '')} />
            </label>
          </>
        )}
        {!draft && (
          <label>
            {server ? 'Database' : 'File path'}
            {/* a new input per kind: a SQLite file path is no PostgreSQL database name */}
            <input key={server ? 'database' : 'file'} name="database" required />
          </label>
        )}
        {draft?.engine === 'duckdb' && (
          <FileTablesFields draft={files} onChange={setFiles} active={active} onActive={setActive} />
        )}
        {draft?.engine === 'documents' && (
          <DocumentTablesFields
            draft={documents}
            onChange={setDocuments}
            headers={headers}
            onHeaders={setHeaders}
            active={active}
            onActive={setActive}
          />
        )}
        {draft && <SourcePreview request={previewRequest(name, draft, previewTable(draft, active))} />}
        {server && (
          <>
            <label>
              User
              <input name="user" required autoComplete="off" />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="new-password" />
            </label>
            <ConnectionOptions />
          </>
        )}
      </div>
      <FormFooter
        error={error}
        busy={busy}
        submit="Register"
        busyText="Registering…"
        dismiss="Close"
        onDismiss={onClose}
      />
    </form>
  );
}

/** A failed registration carries the connection test's diagnosis code (auth_failed, port_closed…). */
function withDiagnosis(e: ApiError): string {
  const code = e.details?.diagnosis;
  return typeof code === 'string' ? `${e.message} (${code})` : e.message;
}
