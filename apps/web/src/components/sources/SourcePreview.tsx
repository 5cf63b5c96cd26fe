import { useEffect, useState } from 'react';
import { api, type NewSource, type SourcePreview as Preview } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { friendlyError } from '../../lib/form-error.js';
import { PREVIEW_DELAY_MS, previewCell } from '../../lib/file-source-form.js';

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'loading'; readonly last?: Preview }
  | { readonly kind: 'done'; readonly preview: Preview }
  | { readonly kind: 'error'; readonly message: string };

/**
 * The columns Junction infers and the first rows of the table being written, read through the
 * connector as queries will: asked a moment after typing stops, the previous ask abandoned.
 */
export function SourcePreview({
  request,
}: {
  /** undefined while the settings are not complete enough to ask */
  request: { source: NewSource; table: string | undefined; key: string } | undefined;
}) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const key = request?.key;
  useEffect(() => {
    if (!request) {
      setState({ kind: 'idle' });
      return;
    }
    const ac = new AbortController();
    setState((s) => ({
      kind: 'loading',
      last: s.kind === 'done' ? s.preview : s.kind === 'loading' ? s.last : undefined,
    }));
    const timer = setTimeout(() => {
      api
        .previewSource(request.source, request.table, ac.signal)
        .then((preview) => setState({ kind: 'done', preview }))
        .catch((err: unknown) => {
          if (ac.signal.aborted) return;
          const code = err instanceof ApiError && err.code !== 'validation' ? ` (${err.code})` : '';
          setState({ kind: 'error', message: friendlyError(err) + code });
        });
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      ac.abort();
    };
    // the key says when the request changed; the object itself is new on every render
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const shown = state.kind === 'done' ? state.preview : state.kind === 'loading' ? state.last : undefined;
  return (
    <section className="j-wide j-source-preview" aria-label="Preview" aria-live="polite">
      <div className="j-row">
        <h3 className="j-subhead">Preview{shown ? ` of ${shown.table}` : ''}</h3>
        <span className="j-spacer" />
        {state.kind === 'loading' && <span className="j-muted j-small">Reading…</span>}
        {shown && (
          <span className="j-muted j-small">
            {shown.rows.length === 0
              ? 'no rows'
              : `first ${shown.rows.length} ${shown.rows.length === 1 ? 'row' : 'rows'}`}
          </span>
        )}
      </div>
      {state.kind === 'idle' && (
        <p className="j-muted j-small j-flush">Fill in a path and the columns and first rows show here.</p>
      )}
      {state.kind === 'error' && <p className="j-error j-flush">{state.message}</p>}
      {/* the header alone says nothing went wrong: say what an empty table most often means */}
      {shown && shown.rows.length === 0 && (
        <p className="j-muted j-small j-flush" data-testid="preview-empty">
          {request?.source.engine === 'documents'
            ? 'The table has no rows: check that the row path matches elements in the file (and, for XML, that prefixes are declared under Namespaces).'
            : 'The table has no rows: the files matched hold no data.'}
        </p>
      )}
      {shown && (
        <div className="j-preview-scroll">
          <table className="j-table j-preview-table">
            <thead>
              <tr>
                {shown.columns.map((c) => (
                  <th key={c.name} title={c.nativeType}>
                    {c.name}
                    <span className="j-muted j-small j-preview-type">{c.type}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((v, j) => (
                    <td key={j} className={v === null ? 'j-muted' : undefined}>
                      {previewCell(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
