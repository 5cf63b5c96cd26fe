import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { api, type ExplainResponse } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { onCatalogChanged } from '../../lib/catalog-events.js';
import { CatalogStore } from '../../lib/catalog-store.js';
import { designerApi } from '../../lib/designer-api.js';
import { hasPlaceholders } from '../../lib/placeholders.js';
import { QueryRun } from '../../lib/query-run.js';
import { useAsync } from '../../lib/use-async.js';
import type { SqlEditorHandle } from '../../editor/SqlEditor.js';
import { CatalogTree } from './CatalogTree.js';
import { ErrorBox } from './ErrorBox.js';
import { HistoryList } from './HistoryList.js';
import { PlanView } from './PlanView.js';
import { ResultsGrid } from './ResultsGrid.js';
import { RunToolbar } from './RunToolbar.js';
import { SavedQueries } from './SavedQueries.js';
import { SaveQueryForm } from './SaveQueryForm.js';

// Monaco is large: it loads after the shell has painted.
const SqlEditor = lazy(() => import('../../editor/SqlEditor.js'));

const DRAFT_KEY = 'junction.draft';
const STARTER = 'SELECT * FROM dbB.customer WHERE c_custkey <= 100';

type Side = 'catalog' | 'saved' | 'history';
type Explain = { analyze: boolean; loading: boolean; data?: ExplainResponse; error?: ApiError };

export function QueryPage({ hidden }: { hidden: boolean }) {
  const editor = useRef<SqlEditorHandle>(null);
  const [run] = useState(() => new QueryRun());
  const snap = useSyncExternalStore(run.subscribe, run.getSnapshot);
  const [side, setSide] = useState<Side>('catalog');
  const [panel, setPanel] = useState<'results' | 'plan'>('results');
  const [explain, setExplain] = useState<Explain>();
  // parameter values of the loaded saved query (JDV H takes a customer key)
  const [params, setParams] = useState<unknown[]>();
  // Monaco loads lazily: a saved query picked before it is ready is applied once it is
  const [editorReady, setEditorReady] = useState(false);
  const pendingSql = useRef<string | undefined>(undefined);
  const [catalogStore] = useState(() => new CatalogStore({ catalog: api.catalog, columns: api.tableColumns }));
  const catalog = useSyncExternalStore(catalogStore.subscribe, catalogStore.getSnapshot);
  const [completion] = useState(() => ({
    current: () => catalogStore.getSnapshot().sources,
    ensureColumns: (t: Parameters<CatalogStore['ensureColumns']>[0]) => catalogStore.ensureColumns(t),
  }));
  const saved = useAsync(() => api.savedQueries());
  const history = useAsync(() => api.history());

  useEffect(() => () => run.dispose(), [run]);
  useEffect(() => {
    void catalogStore.load();
    return onCatalogChanged(() => void catalogStore.load());
  }, [catalogStore]);

  const showPositionOf = (e: ApiError | undefined) => {
    if (e?.position) editor.current?.showError(e.message, e.position);
  };

  async function onRun() {
    const sql = editor.current?.getValue() ?? '';
    if (sql.trim() === '') return;
    editor.current?.clearError();
    setPanel('results');
    await run.start(sql, params ? { params } : {});
    showPositionOf(run.getSnapshot().error);
    history.reload();
  }

  async function onExplain(analyze: boolean) {
    const sql = editor.current?.getValue() ?? '';
    if (sql.trim() === '') return;
    editor.current?.clearError();
    setPanel('plan');
    setExplain({ analyze, loading: true });
    try {
      setExplain({ analyze, loading: false, data: await api.explain(sql, analyze, params) });
    } catch (e) {
      const error = e instanceof ApiError ? e : new ApiError(0, 'internal', 'CLIENT', String(e));
      setExplain({ analyze, loading: false, error });
      showPositionOf(error);
    }
  }

  const load = (sql: string, withParams?: unknown[] | null) => {
    if (editor.current) {
      editor.current.setValue(sql);
      editor.current.clearError();
    } else {
      pendingSql.current = sql;
    }
    setParams(withParams && withParams.length > 0 ? withParams : undefined);
  };

  return (
    <main className="j-workspace" hidden={hidden}>
      <aside className="j-sidebar">
        <div className="j-tabs" role="tablist">
          {(['catalog', 'saved', 'history'] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              aria-selected={side === t}
              onClick={() => {
                setSide(t);
                // runs finish on the server a moment after the client stops reading (cancel, errors)
                if (t === 'history') history.reload();
              }}
            >
              {t === 'catalog' ? 'Catalog' : t === 'saved' ? 'Saved' : 'History'}
            </button>
          ))}
        </div>
        <div className="j-sidebar-body">
          {side === 'catalog' && (
            <CatalogTree
              sources={catalog.sources}
              loading={catalog.loading}
              error={catalog.error?.message}
              onOpenTable={(source, schema, table) => void catalogStore.ensureColumns([{ source, schema, table }])}
              onInsert={(t) => editor.current?.insert(t)}
              onReload={() => void catalogStore.load()}
              onOpenViewSql={(schema, name) =>
                void designerApi.views().then((vs) => {
                  const v = vs.find((x) => x.schema === schema && x.name === name);
                  if (v) load(v.sql);
                })
              }
            />
          )}
          {side === 'saved' && (
            <>
              <SaveQueryForm
                onSave={async (name) => {
                  await api.saveQuery({ name, sql: editor.current?.getValue() ?? '', ...(params ? { params } : {}) });
                  saved.reload();
                }}
              />
              <SavedQueries
                items={saved.data ?? []}
                error={saved.error?.message}
                onLoad={(q) => load(q.sql, q.params)}
              />
            </>
          )}
          {side === 'history' && (
            <HistoryList items={history.data ?? []} error={history.error?.message} onLoad={(sql) => load(sql)} />
          )}
        </div>
      </aside>
      <section className="j-main">
        <RunToolbar
          run={snap}
          params={params}
          ready={editorReady}
          explaining={explain?.loading ?? false}
          onRun={onRun}
          onExplain={onExplain}
          onCancel={() => void run.cancel()}
          onClearParams={() => setParams(undefined)}
        />
        <div className="j-editor" data-testid="sql-editor">
          <Suspense fallback={<div className="j-editor-loading">Loading editor…</div>}>
            <SqlEditor
              ref={editor}
              defaultValue={localStorage.getItem(DRAFT_KEY) ?? STARTER}
              catalog={completion}
              onChange={(sql) => {
                localStorage.setItem(DRAFT_KEY, sql);
                // a saved query's values go with its placeholders: other SQL must not get them
                if (!hasPlaceholders(sql)) setParams(undefined);
              }}
              onRun={onRun}
              onReady={() => {
                if (pendingSql.current !== undefined) editor.current?.setValue(pendingSql.current);
                pendingSql.current = undefined;
                setEditorReady(true);
              }}
            />
          </Suspense>
        </div>
        <div className="j-tabs" role="tablist">
          <button type="button" role="tab" aria-selected={panel === 'results'} onClick={() => setPanel('results')}>
            Results
          </button>
          <button type="button" role="tab" aria-selected={panel === 'plan'} onClick={() => setPanel('plan')}>
            Plan
          </button>
        </div>
        <div className="j-panel">
          {panel === 'results' && (
            <>
              {snap.error && <ErrorBox error={snap.error} />}
              {snap.columns.length > 0 && (
                <ResultsGrid
                  columns={snap.columns}
                  rows={snap.rows}
                  rowCount={snap.rowCount}
                  finished={snap.status === 'done'}
                />
              )}
              {snap.status === 'idle' && (
                <p className="j-muted j-pad">Run a query with Ctrl+Enter, or load a saved query.</p>
              )}
            </>
          )}
          {panel === 'plan' && (
            <>
              {explain?.loading && <p className="j-muted j-pad">Planning…</p>}
              {explain?.error && <ErrorBox error={explain.error} />}
              {explain?.data && (
                <PlanView plan={explain.data.plan} text={explain.data.text} analyze={explain.analyze} />
              )}
              {!explain && (
                <p className="j-muted j-pad">Explain shows where each step runs and the SQL sent to each source.</p>
              )}
            </>
          )}
        </div>
      </section>
    </main>
  );
}
