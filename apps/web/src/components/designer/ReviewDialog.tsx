import { useEffect, useState } from 'react';
import { api } from '../../lib/api.js';
import { designerApi, type Impact } from '../../lib/designer-api.js';
import { sourcesText, summarizePlan } from '../../lib/view-graph/plan-parts.js';
import { DiffView } from './DiffView.js';

interface Props {
  view: { id: string; schema: string; name: string; sql: string };
  sql: string;
  onConfirm(confirmBreaking: boolean): Promise<string | undefined>;
  onCancel(): void;
}

type Loaded = { impact: Impact; before: string; after: string };

async function perSource(sql: string): Promise<string> {
  try {
    return sourcesText(summarizePlan((await api.explain(sql, false)).plan).parts);
  } catch (e) {
    // the saved SQL may no longer plan (a source changed): the diff says so instead of failing
    return `-- does not plan: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** A change to a saved view, reviewed: its SQL, the SQL each source gets, and who reads it. */
export function ReviewDialog({ view, sql, onConfirm, onCancel }: Props) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    Promise.all([designerApi.impact(view.id, sql), perSource(view.sql), perSource(sql)]).then(
      ([impact, before, after]) => live && setLoaded({ impact, before, after }),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [view.id, view.sql, sql]);
  const breaking = loaded?.impact.dependants.filter((d) => d.breaks) ?? [];
  const hidden = loaded?.impact.hiddenDependants ?? 0;
  const hiddenBreaking = loaded?.impact.hiddenBreaking ?? 0;
  const breaksAny = breaking.length > 0 || hiddenBreaking > 0;
  const unseen = (n: number) => `${n} ${n === 1 ? 'view' : 'views'} you cannot see`;
  return (
    <div className="j-dialog-backdrop">
      <div className="j-dialog j-dialog-wide j-card" role="dialog" aria-label="Review changes">
        <h2>
          Review changes to {view.schema}.{view.name}
        </h2>
        {error && (
          <p className="j-error" role="alert">
            {error}
          </p>
        )}
        {!loaded && !error && <p className="j-muted">Comparing…</p>}
        {loaded && (
          <div className="j-review">
            <div>
              <h3>View SQL</h3>
              <DiffView before={view.sql} after={sql} testId="diff-sql" />
            </div>
            <div>
              <h3>SQL sent to each source</h3>
              <DiffView before={loaded.before} after={loaded.after} testId="diff-sources" />
            </div>
            <div className="j-review-deps">
              <h3>Views that read it</h3>
              {loaded.impact.dependants.length === 0 && hidden === 0 && <p className="j-muted j-small">None.</p>}
              <ul data-testid="review-dependants">
                {loaded.impact.dependants.map((d) => (
                  <li key={d.id} className={d.breaks ? 'j-error' : undefined}>
                    {d.schema}.{d.name} — {d.breaks ? `breaks: ${d.reason}` : 'keeps working'}
                  </li>
                ))}
              </ul>
              {hidden > 0 && (
                <p className={hiddenBreaking > 0 ? 'j-error j-small' : 'j-muted j-small'} data-testid="review-hidden">
                  {`Also read by ${unseen(hidden)}`}
                  {hiddenBreaking > 0 ? `, ${hiddenBreaking} of which ${hiddenBreaking === 1 ? 'breaks' : 'break'}.` : '.'}
                </p>
              )}
              {loaded.impact.removed.length > 0 && (
                <p className="j-small">Columns removed: {loaded.impact.removed.join(', ')}</p>
              )}
              {loaded.impact.changed.map((c) => (
                <p key={c.name} className="j-small">
                  {c.name}: {c.from} → {c.to}
                </p>
              ))}
              {breaksAny && (
                <label className="j-row j-error">
                  <input type="checkbox" checked={confirm} onChange={(e) => setConfirm(e.target.checked)} />
                  Save anyway and break{' '}
                  {[
                    ...breaking.map((d) => `${d.schema}.${d.name}`),
                    ...(hiddenBreaking > 0 ? [unseen(hiddenBreaking)] : []),
                  ].join(', ')}
                </label>
              )}
            </div>
          </div>
        )}
        <div className="j-row">
          <span className="j-spacer" />
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className="j-primary"
            disabled={!loaded || busy || (breaksAny && !confirm)}
            onClick={async () => {
              setBusy(true);
              const err = await onConfirm(confirm);
              setBusy(false);
              if (err) setError(err);
            }}
          >
            Save changes
          </button>
        </div>
      </div>
    </div>
  );
}
