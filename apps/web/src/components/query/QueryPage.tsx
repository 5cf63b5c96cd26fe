import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { api, type ExplainResponse, type SavedQuery, type User } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { onCatalogChanged } from '../../lib/catalog-events.js';
import { CatalogStore } from '../../lib/catalog-store.js';
import { engineToSend, loadEngineChoice, ranOnText, saveEngineChoice, type EngineChoice } from '../../lib/engine-choice.js';
import { downloadExport, exportFileName, type ExportFormat, type ExportSource } from '../../lib/export-file.js';
import { friendlyError } from '../../lib/form-error.js';
import { missingParam, placeholderCount } from '../../lib/placeholders.js';
import { designerApi } from '../../lib/designer-api.js';
import { QueryRun } from '../../lib/query-run.js';
import { useSourceStatuses } from '../../lib/source-status.js';
import { useTheme } from '../../lib/theme.js';
import { useAsync } from '../../lib/use-async.js';
import {
  activeTab,
  addTab,
  closeTab,
  loadWorkspace,
  paramsToSend,
  paramValues,
  saveWorkspace,
  updateTab,
  type EditorTab,
  type Workspace,
} from '../../lib/workspace-tabs.js';
import type { SqlEditorHandle } from '../../editor/SqlEditor.js';
import { CatalogTree } from './CatalogTree.js';
import { EditorTabs } from './EditorTabs.js';
import { ErrorBox } from './ErrorBox.js';
import { HistoryList } from './HistoryList.js';
import { ParamsForm, type ParamAsk } from './ParamsForm.js';
import { PlanView } from './PlanView.js';
import { ResultsGrid } from './ResultsGrid.js';
import { RunOnControl } from './RunOnControl.js';
import { RunSummary } from './RunSummary.js';
import { RunToolbar } from './RunToolbar.js';
import { SavedQueries } from './SavedQueries.js';
import { SaveQueryForm } from './SaveQueryForm.js';

// Monaco is large: it loads after the shell has painted.
const SqlEditor = lazy(() => import('../../editor/SqlEditor.js'));

type Side = 'catalog' | 'saved' | 'history';
type Explain = { analyze: boolean; loading: boolean; data?: ExplainResponse; error?: ApiError };

export function QueryPage({ hidden, user }: { hidden: boolean; user: User }) {
  const viewer = user.role === 'viewer';
  const editor = useRef<SqlEditorHandle>(null);
  const [run] = useState(() => new QueryRun());
  const snap = useSyncExternalStore(run.subscribe, run.getSnapshot);
  const [ws, setWs] = useState<Workspace>(() => loadWorkspace(localStorage, user.id));
  const tab = activeTab(ws);
  // viewers run saved queries: the list is what they start from
  const [side, setSide] = useState<Side>(viewer ? 'saved' : 'catalog');
  const [panel, setPanel] = useState<'results' | 'plan'>('results');
  const [explain, setExplain] = useState<Explain>();
  const [exporting, setExporting] = useState<string>();
  const [editorReady, setEditorReady] = useState(false);
  const [ask, setAsk] = useState<ParamAsk>();
  // what the last run sent, so Export fetches the same result again
  const lastRun = useRef<ExportSource & { title: string }>(undefined);
  const [catalogStore] = useState(() => new CatalogStore({ catalog: api.catalog, columns: api.tableColumns }));
  const catalog = useSyncExternalStore(catalogStore.subscribe, catalogStore.getSnapshot);
  const [completion] = useState(() => ({
    current: () => catalogStore.getSnapshot().sources,
    ensureColumns: (t: Parameters<CatalogStore['ensureColumns']>[0]) => catalogStore.ensureColumns(t),
  }));
  const { dark } = useTheme();
  // only while the catalog shows: a hidden workspace (another page open) asks nothing
  const statuses = useSourceStatuses(!hidden && side === 'catalog');
  const saved = useAsync(() => api.savedQueries());
  const history = useAsync(() => api.history());
  // viewers run saved queries and views by id, and those routes take no engine: nothing to choose
  const engines = useAsync(() => (viewer ? Promise.resolve(null) : api.engines()));
  const [picked, setPicked] = useState<EngineChoice | undefined>(() => loadEngineChoice(localStorage));
  const engine = engineToSend(engines.data, picked);

  useEffect(() => () => run.dispose(), [run]);
  useEffect(() => saveWorkspace(localStorage, user.id, ws), [ws, user.id]);
  useEffect(() => {
    void catalogStore.load();
    return onCatalogChanged(() => void catalogStore.load());
  }, [catalogStore]);

  const paramCount = placeholderCount(tab.sql);

  /**
   * What Run and Explain send: the selection or the statement at the cursor, with its values.
   * Undefined while a placeholder has no value yet: its field is focused instead, since the
   * source would only fail on the empty string with a message about casting "".
   */
  function runnable() {
    const r = editor.current?.getRunnable();
    if (!r) return undefined;
    const count = placeholderCount(r.sql);
    const params = count > 0 ? paramsToSend(tab.params, count) : undefined;
    const missing = params ? missingParam(params) : -1;
    if (missing >= 0) {
      setAsk((a) => ({ index: missing, seq: (a?.seq ?? 0) + 1 }));
      return undefined;
    }
    setAsk(undefined);
    // the saved query's (or view's) own text, unchanged: run it by id (a viewer may run nothing
    // else); with an engine picked it runs as SQL, since the by-id routes cannot be told where
    const byId = tab.origin && r.whole && tab.origin.sql.trim() === r.sql && !engine ? tab.origin : undefined;
    const savedId = byId && byId.kind !== 'view' ? byId.id : undefined;
    const viewId = byId?.kind === 'view' ? byId.id : undefined;
    return { ...r, params, savedId, viewId };
  }

  async function onRun() {
    const r = runnable();
    if (!r || run.getSnapshot().status === 'running') return;
    editor.current?.clearError();
    setPanel('results');
    // a view has no export route of its own, and a viewer may not export ad hoc SQL
    lastRun.current =
      r.viewId && viewer
        ? undefined
        : {
            ...(r.savedId ? { savedId: r.savedId } : { sql: r.sql, ...(engine ? { engine } : {}) }),
            ...(r.params ? { params: r.params } : {}),
            title: tab.origin?.name ?? tab.title,
          };
    await run.start(r.sql, {
      ...(r.params ? { params: r.params } : {}),
      ...(r.savedId ? { savedId: r.savedId } : {}),
      ...(r.viewId ? { viewId: r.viewId } : {}),
      ...(engine ? { engine } : {}),
    });
    const error = run.getSnapshot().error;
    if (error?.position) editor.current?.showError(error.message, error.position, r.start);
    // Trino went away or came back since the page asked: the control shows it as it is now
    if (error?.code.startsWith('trino_')) engines.reload();
    history.reload();
  }

  async function onExplain(analyze: boolean) {
    const r = runnable();
    if (!r) return;
    editor.current?.clearError();
    setPanel('plan');
    setExplain({ analyze, loading: true });
    try {
      setExplain({ analyze, loading: false, data: await api.explain(r.sql, analyze, r.params, engine) });
    } catch (e) {
      const error = e instanceof ApiError ? e : new ApiError(0, 'internal', 'CLIENT', String(e));
      setExplain({ analyze, loading: false, error });
      if (error.position) editor.current?.showError(error.message, error.position, r.start);
      if (error.code.startsWith('trino_')) engines.reload();
    }
  }

  async function onExport(format: ExportFormat) {
    const what = lastRun.current;
    if (!what) return;
    setExporting(`Exporting ${format.toUpperCase()}…`);
    try {
      const bytes = await downloadExport(what, format, exportFileName(what.title, format));
      setExporting(`Exported ${bytes.toLocaleString('en-US')} bytes as ${format.toUpperCase()}.`);
    } catch (e) {
      setExporting(`Export failed: ${friendlyError(e)}`);
    }
  }

  /** Opens SQL in the current tab when it holds nothing of the user's own, else in a new one. */
  function open(sql: string, extra: Partial<EditorTab>) {
    run.reset();
    setAsk(undefined);
    setExplain(undefined);
    setExporting(undefined);
    lastRun.current = undefined;
    const cur = activeTab(ws);
    const untouched = cur.sql.trim() === '' || (cur.origin !== undefined && cur.origin.sql === cur.sql);
    const next = untouched ? ws : addTab(ws, { sql, ...extra });
    if (next === ws) {
      setWs(updateTab(ws, cur.id, { sql, origin: undefined, ...extra }));
      editor.current?.setValue(sql);
      editor.current?.clearError();
    } else {
      setWs(next);
    }
  }

  /** A granted view, run as it is: its SELECT * in a tab of its own, sent to the view's run route. */
  async function runView(schema: string, name: string) {
    const v = (await designerApi.views()).find((x) => x.schema === schema && x.name === name);
    if (!v || run.getSnapshot().status === 'running') return;
    // names are validated identifiers, as the view route quotes them
    const sql = `SELECT * FROM ${schema}.${name}`;
    open(sql, { title: `${schema}.${name}`, params: [], origin: { id: v.id, name: `${schema}.${name}`, sql, kind: 'view' } });
    setPanel('results');
    lastRun.current = viewer ? undefined : { sql, title: `${schema}.${name}` };
    await run.start(sql, { viewId: v.id });
    history.reload();
  }

  const loadSaved = (q: SavedQuery) =>
    open(q.sql, { origin: { id: q.id, name: q.name, sql: q.sql }, params: paramValues(q.params) });

  const canChange = (q: SavedQuery) => !viewer && (user.role === 'admin' || (q.owner != null && q.owner === user.username));

  // Ctrl/Cmd+Enter runs wherever the focus is while the workspace shows: after Explain the focus
  // is on a button that was disabled while planning, which leaves it on the page's body
  const runRef = useRef(onRun);
  runRef.current = onRun;
  useEffect(() => {
    if (hidden) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      // the editor runs by itself; a dialog (the cell viewer) keeps its keys
      if (target?.closest('.monaco-editor, dialog')) return;
      e.preventDefault();
      void runRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [hidden]);

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
              statuses={statuses}
              canDesign={!viewer}
              onRunView={(schema, name) => void runView(schema, name)}
              onOpenViewSql={(schema, name) =>
                void designerApi.views().then((vs) => {
                  const v = vs.find((x) => x.schema === schema && x.name === name);
                  if (v) open(v.sql, { title: `${schema}.${name}` });
                })
              }
            />
          )}
          {side === 'saved' && (
            <>
              {!viewer && (
                <SaveQueryForm
                  onSave={async (name) => {
                    const sql = editor.current?.getValue() ?? tab.sql;
                    const params = paramsToSend(tab.params, placeholderCount(sql));
                    const q = await api.saveQuery({ name, sql, ...(params.length ? { params } : {}) });
                    setWs((w) => updateTab(w, w.active, { origin: { id: q.id, name: q.name, sql: q.sql } }));
                    saved.reload();
                  }}
                />
              )}
              <SavedQueries
                items={saved.data ?? []}
                error={saved.error?.message}
                canChange={canChange}
                onLoad={loadSaved}
                onRename={async (q, name) => {
                  await api.updateSavedQuery(q.id, { name });
                  setWs((w) => ({
                    ...w,
                    tabs: w.tabs.map((t) => (t.origin?.id === q.id ? { ...t, origin: { ...t.origin, name } } : t)),
                  }));
                  saved.reload();
                }}
                onOverwrite={async (q) => {
                  const sql = editor.current?.getValue() ?? tab.sql;
                  const params = paramsToSend(tab.params, placeholderCount(sql));
                  const u = await api.updateSavedQuery(q.id, { sql, params });
                  setWs((w) => updateTab(w, w.active, { origin: { id: u.id, name: u.name, sql: u.sql } }));
                  saved.reload();
                }}
                onDelete={async (q) => {
                  await api.deleteSavedQuery(q.id);
                  setWs((w) => ({ ...w, tabs: w.tabs.map((t) => (t.origin?.id === q.id ? { ...t, origin: undefined } : t)) }));
                  saved.reload();
                }}
              />
            </>
          )}
          {side === 'history' && (
            <HistoryList
              items={history.data ?? []}
              error={history.error?.message}
              onLoad={(h) => open(h.sql, { params: paramValues(h.params) })}
            />
          )}
        </div>
      </aside>
      <section className="j-main">
        <RunToolbar
          run={snap}
          ready={editorReady}
          canExplain={!viewer}
          explaining={explain?.loading ?? false}
          runOn={
            engines.data?.trino ? (
              <RunOnControl
                info={engines.data}
                picked={picked}
                disabled={snap.status === 'running'}
                onPick={(c) => {
                  setPicked(c);
                  saveEngineChoice(localStorage, c);
                }}
              />
            ) : undefined
          }
          onRun={() => void onRun()}
          onExplain={(a) => void onExplain(a)}
          onCancel={() => void run.cancel()}
        />
        <EditorTabs
          workspace={ws}
          onSelect={(id) => {
            setAsk(undefined);
            setWs((w) => ({ ...w, active: id }));
          }}
          onAdd={() => setWs((w) => addTab(w))}
          onClose={(id) => setWs((w) => closeTab(w, id))}
        />
        <div className="j-editor" data-testid="sql-editor">
          <Suspense fallback={<div className="j-editor-loading">Loading editor…</div>}>
            <SqlEditor
              ref={editor}
              path={`${tab.id}.sql`}
              defaultValue={tab.sql}
              catalog={completion}
              readOnly={viewer}
              dark={dark}
              onChange={(sql) => setWs((w) => updateTab(w, w.active, { sql }))}
              onRun={() => void onRun()}
              onReady={() => setEditorReady(true)}
            />
          </Suspense>
        </div>
        {viewer && !tab.origin && (
          <p className="j-hint j-small" role="note">
            Viewers run saved queries: pick one under Saved, then Run.
          </p>
        )}
        <ParamsForm
          sql={tab.sql}
          count={paramCount}
          values={tab.params}
          ask={ask}
          onChange={(params) => setWs((w) => updateTab(w, w.active, { params }))}
          onRun={() => void onRun()}
        />
        <div className="j-tabs" role="tablist">
          <button type="button" role="tab" aria-selected={panel === 'results'} onClick={() => setPanel('results')}>
            Results
          </button>
          {!viewer && (
            <button type="button" role="tab" aria-selected={panel === 'plan'} onClick={() => setPanel('plan')}>
              Plan
            </button>
          )}
          <span className="j-spacer" />
          {panel === 'results' && snap.status === 'done' && lastRun.current && (
            <span className="j-export">
              <button type="button" onClick={() => void onExport('csv')}>
                Export CSV
              </button>
              <button type="button" onClick={() => void onExport('json')}>
                Export JSON
              </button>
              {exporting && (
                <span className="j-muted j-small" role="status" data-testid="export-status">
                  {exporting}
                </span>
              )}
            </span>
          )}
        </div>
        <div className="j-panel">
          {panel === 'results' && (
            <>
              {snap.error && <ErrorBox error={snap.error} />}
              {snap.status === 'done' && (engines.data?.trino || snap.stats?.engine !== 'local') && ranOnText(snap.stats) && (
                <p className="j-run-engine j-small" data-testid="run-engine">
                  {ranOnText(snap.stats)}
                </p>
              )}
              {snap.status === 'done' && <RunSummary statements={snap.stats?.sourceStatements} />}
              {snap.columns.length > 0 && (
                <ResultsGrid
                  key={snap.queryId}
                  columns={snap.columns}
                  rows={snap.rows}
                  rowCount={snap.rowCount}
                  finished={snap.status === 'done'}
                />
              )}
              {snap.status === 'running' && snap.columns.length === 0 && <p className="j-muted j-pad">Running…</p>}
              {snap.status === 'idle' && (
                <p className="j-muted j-pad">
                  {viewer
                    ? 'Pick a saved query, then Run, or Run a view in the Catalog.'
                    : 'Run a query with Ctrl+Enter, or load a saved query.'}{' '}
                  A
                  selection runs alone; without one, the statement at the cursor runs.
                </p>
              )}
            </>
          )}
          {panel === 'plan' && (
            <>
              {explain?.loading && <p className="j-muted j-pad">Planning…</p>}
              {explain?.error && <ErrorBox error={explain.error} />}
              {explain?.data && (
                <PlanView
                  plan={explain.data.plan}
                  text={explain.data.text}
                  analyze={explain.analyze}
                  engine={explain.data.engine}
                />
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
