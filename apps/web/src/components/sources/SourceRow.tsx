import { useEffect, useState } from 'react';
import { api, type Source, type SourceDetail } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { notifyCatalogChanged } from '../../lib/catalog-events.js';
import { SourceEditForm } from './SourceEditForm.js';
import { SourceSemantics } from './SourceSemantics.js';
import { connectionLabel, describeDiagnosis, ENGINE_LABELS } from '../../lib/source-form.js';

type Diagnosis = { ok: boolean; message: string };

export function SourceRow({ source, isAdmin, onChanged }: { source: Source; isAdmin: boolean; onChanged(): void }) {
  const [busy, setBusy] = useState<string>();
  const [diagnosis, setDiagnosis] = useState<Diagnosis>();
  // the list carries name, engine and status; connection settings come with the detail
  const [detail, setDetail] = useState<SourceDetail>();
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    let live = true;
    api.source(source.id).then(
      (d) => live && setDetail(d),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [source.id, source.status]);

  async function act(label: string, f: () => Promise<Diagnosis | void>) {
    setBusy(label);
    setDiagnosis(undefined);
    try {
      const d = await f();
      if (d) setDiagnosis(d);
    } catch (e) {
      setDiagnosis({ ok: false, message: e instanceof ApiError ? e.message : String(e) });
    } finally {
      setBusy(undefined);
      onChanged();
    }
  }

  const test = () =>
    act('test', async () => {
      const d = await api.testSource(source.id);
      return { ok: d.ok, message: describeDiagnosis(d) };
    });
  const refresh = () =>
    act('refresh', async () => {
      const d = await api.refreshSource(source.id);
      notifyCatalogChanged();
      return { ok: true, message: `Catalog refreshed: ${d.tables} ${d.tables === 1 ? 'table' : 'tables'}.` };
    });
  const remove = () => {
    if (!confirm(`Delete source ${source.name}? Queries and views that use it will stop working.`)) return;
    void act('delete', async () => {
      await api.deleteSource(source.id);
      notifyCatalogChanged();
    });
  };

  const where = detail ? connectionLabel(detail) : '';
  const message = detail?.statusMessage;
  return (
    <>
      <tr data-testid={`source-${source.name}`}>
        <td>
          <strong>{source.name}</strong>
          {source.demo && <span className="j-badge">demo</span>}
          <SourceSemantics semantics={detail?.semantics} />
        </td>
        <td>{ENGINE_LABELS[source.engine] ?? source.engine}</td>
        {isAdmin && <td className="j-mono j-small">{where}</td>}
        <td>
          <span className={`j-status j-status-${source.status}`}>{source.status}</span>
          {/* a fresh test result says the same as the stored message, only newer: show it once */}
          {message && source.status !== 'online' && !diagnosis && <div className="j-muted j-small">{message}</div>}
          {diagnosis && (
            <div className={diagnosis.ok ? 'j-ok j-small' : 'j-error j-small'} role="status" data-testid="diagnosis">
              {diagnosis.message}
            </div>
          )}
        </td>
        {/* testing, re-introspecting and deleting are admin actions in the API too */}
        {isAdmin && (
          <td className="j-actions">
            <button
              type="button"
              onClick={() => {
                // the last outcome (a "Saved…" from the previous edit) would sit beside this edit's error
                setDiagnosis(undefined);
                setEditing(true);
              }}
              disabled={!!busy || editing || !detail}
            >
              Edit
            </button>
            <button type="button" onClick={test} disabled={!!busy}>
              {busy === 'test' ? 'Testing…' : 'Test'}
            </button>
            <button type="button" onClick={refresh} disabled={!!busy}>
              {busy === 'refresh' ? 'Refreshing…' : 'Refresh catalog'}
            </button>
            <button type="button" className="j-danger" onClick={remove} disabled={!!busy}>
              Delete
            </button>
          </td>
        )}
      </tr>
      {editing && detail && (
        <tr>
          <td colSpan={5}>
            <SourceEditForm
              source={detail}
              onClose={() => setEditing(false)}
              onSaved={(d) => {
                setEditing(false);
                setDetail(d);
                setDiagnosis({ ok: true, message: 'Saved; the new settings were tested and are in use.' });
                notifyCatalogChanged();
                onChanged();
              }}
            />
          </td>
        </tr>
      )}
    </>
  );
}
