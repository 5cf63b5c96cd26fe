import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { ReactFlowProvider } from '@xyflow/react';
import { api } from '../../lib/api.js';
import { ApiError } from '../../lib/api-error.js';
import { notifyCatalogChanged, onCatalogChanged } from '../../lib/catalog-events.js';
import { CatalogStore } from '../../lib/catalog-store.js';
import { designerApi, type StoredView } from '../../lib/designer-api.js';
import { isUnsaved, loadDraft, storeDraft } from '../../lib/designer-draft.js';
import { useHash } from '../../lib/route.js';
import { useAsync } from '../../lib/use-async.js';
import * as edit from '../../lib/view-graph/edit.js';
import { sqlToGraph } from '../../lib/view-graph/from-sql.js';
import { freeSpot } from '../../lib/view-graph/placement.js';
import type { StringSemantics } from '../../lib/view-graph/join-warnings.js';
import { layoutOf, reopen } from '../../lib/view-graph/layout.js';
import { EMPTY_GRAPH, type ViewGraph } from '../../lib/view-graph/model.js';
import { suggestJoins } from '../../lib/view-graph/suggest-joins.js';
import { graphToSql } from '../../lib/view-graph/to-sql.js';
import { Canvas } from './Canvas.js';
import { DesignerActionsContext } from './designer-actions.js';
import { Inspector } from './Inspector.js';
import { LineagePanel } from './LineagePanel.js';
import { Palette } from './Palette.js';
import { PlanPanel } from './PlanPanel.js';
import { PreviewPanel } from './PreviewPanel.js';
import { ReviewDialog } from './ReviewDialog.js';
import { SaveDialog } from './SaveDialog.js';
import { SqlPanel } from './SqlPanel.js';
import { TableCache, type CatalogEntry } from './table-cache.js';
import { useViewGraph } from './use-view-graph.js';
import './designer.css';

type Bottom = 'sql' | 'preview' | 'plan' | 'lineage';
const PREVIEW_ROWS = 100;
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** `#/designer/<schema>/<view>` opens a saved view; `#/designer` is a new one. */
function viewInHash(hash: string): { schema: string; name: string } | undefined {
  const m = /^#\/designer\/([^/]+)\/([^/]+)$/.exec(hash);
  return m ? { schema: decodeURIComponent(m[1]!), name: decodeURIComponent(m[2]!) } : undefined;
}

const viewHash = (v?: { schema: string; name: string }) =>
  v ? `#/designer/${encodeURIComponent(v.schema)}/${encodeURIComponent(v.name)}` : '#/designer';

export function DesignerPage({ userId }: { userId: string }) {
  const [catalogStore] = useState(() => new CatalogStore({ catalog: api.catalog, columns: api.tableColumns }));
  const catalog = useSyncExternalStore(catalogStore.subscribe, catalogStore.getSnapshot);
  const catalogLoad = useRef<Promise<void>>(undefined);
  const [cache] = useState(() => new TableCache(() => catalogStore.getSnapshot().sources));
  // the draft is read once, before the first render, so the canvas comes back as it was left
  // (an address naming another view is asked about before that view replaces the draft)
  const [draft] = useState(() => loadDraft(localStorage, userId));
  const { graph, apply, reset, undo, redo, canUndo, canRedo } = useViewGraph(draft?.graph);
  const [opened, setOpened] = useState<StoredView | undefined>(draft?.opened);
  const [edited, setEdited] = useState<{ text: string; reason?: string; typed?: string } | undefined>(draft?.edited);
  // the canvas as opened or last saved: what "unsaved" is measured against
  const [baseline, setBaseline] = useState<ViewGraph>(draft?.baseline ?? EMPTY_GRAPH);
  const unsaved = isUnsaved({ graph, baseline, edited, opened });
  const [bottom, setBottom] = useState<Bottom>('sql');
  const [selectedJoin, setSelectedJoin] = useState<string>();
  const [dialog, setDialog] = useState<'save' | 'review'>();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const [semantics, setSemantics] = useState<ReadonlyMap<string, StringSemantics | undefined>>(new Map());
  const schemas = useAsync(() => designerApi.schemas());
  const hash = useHash();

  useEffect(() => {
    storeDraft(localStorage, userId, { graph, baseline, edited, opened });
  }, [userId, graph, baseline, edited, opened]);

  // a restored draft of a saved view shows that view's address again
  useEffect(() => {
    if (draft?.opened && !viewInHash(location.hash)) location.replace(viewHash(draft.opened));
  }, [draft]);

  const loadCatalog = () => (catalogLoad.current = catalogStore.load());
  useEffect(() => {
    void loadCatalog();
    return onCatalogChanged(() => void loadCatalog());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [catalogStore]);

  // a saved view named in the address opens on the canvas
  const wanted = viewInHash(hash);
  useEffect(() => {
    if (!wanted || (opened && opened.schema === wanted.schema && opened.name === wanted.name)) return;
    const title = opened ? `${opened.schema}.${opened.name}` : 'the new view';
    if (unsaved && !confirm(`Discard your unsaved changes to ${title} and open ${wanted.schema}.${wanted.name}?`)) {
      location.replace(viewHash(opened));
      return;
    }
    let live = true;
    (async () => {
      await catalogLoad.current;
      const v = (await designerApi.views()).find((x) => x.schema === wanted.schema && x.name === wanted.name);
      if (!live) return;
      if (!v) return setNotice({ text: `There is no view ${wanted.schema}.${wanted.name} you may see.`, error: true });
      await cache.loadFor(v.sql);
      if (!live) return;
      const r = reopen(v, cache.resolve);
      const g = r.ok ? r.graph : EMPTY_GRAPH;
      setOpened(v);
      reset(g);
      setBaseline(g);
      setEdited(r.ok ? undefined : { text: v.sql, reason: r.reason });
      setNotice(undefined);
    })().catch((e: unknown) => live && setNotice({ text: message(e), error: true }));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wanted?.schema, wanted?.name]);

  // string semantics of the sources on the canvas, for join warnings
  const sourcesOnCanvas = [...new Set(graph.tables.filter((t) => t.kind === 'table').map((t) => t.path[0]!))];
  useEffect(() => {
    for (const s of sourcesOnCanvas)
      if (!semantics.has(s))
        void cache.semanticsOf(s).then(
          (sem) => setSemantics((m) => new Map(m).set(s, sem)),
          () => setSemantics((m) => new Map(m).set(s, undefined)),
        );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourcesOnCanvas.join('\u0000')]);

  const generated = useMemo(() => graphToSql(graph), [graph]);
  const suggestions = useMemo(() => suggestJoins(graph), [graph]);
  const sqlOnly = edited?.reason !== undefined;
  const sql = sqlOnly ? edited!.text : generated;
  const previewSql = sqlOnly
    ? `SELECT * FROM (\n${sql.trim().replace(/;+$/, '')}\n) AS preview LIMIT ${PREVIEW_ROWS}`
    : graph.limit === undefined && graph.tables.length > 0
      ? graphToSql({ ...graph, limit: PREVIEW_ROWS })
      : generated;

  async function addTable(e: CatalogEntry, at?: { x: number; y: number }) {
    try {
      const t = await cache.load(e);
      apply((g) => edit.addTable(g, t, freeSpot(g, at ?? { x: 40, y: 40 }, t.columns.length)));
    } catch (err) {
      setNotice({ text: message(err), error: true });
    }
  }

  /** The server checks an expression by validating the whole view with it. */
  async function checked(next: ViewGraph): Promise<string | undefined> {
    try {
      const r = await designerApi.validate(graphToSql(next));
      if (!r.ok) return r.error?.message ?? 'The server refused it.';
      apply(() => next);
      return undefined;
    } catch (e) {
      return message(e);
    }
  }

  async function saveNew(target: { schema: string; create: boolean; name: string }): Promise<string | undefined> {
    try {
      if (target.create) await designerApi.createSchema(target.schema);
      const v = await designerApi.createView({
        schema: target.schema,
        name: target.name,
        sql,
        layout: sqlOnly ? null : layoutOf(graph),
      });
      saved(v, `Saved as ${v.schema}.${v.name}.`);
      return undefined;
    } catch (e) {
      schemas.reload();
      return message(e);
    }
  }

  async function saveChanges(confirmBreaking: boolean): Promise<string | undefined> {
    if (!opened) return 'No view is open.';
    try {
      const v = await designerApi.updateView(opened.id, {
        sql,
        layout: sqlOnly ? null : layoutOf(graph),
        ...(confirmBreaking ? { confirmBreaking } : {}),
      });
      saved(v, `Saved ${v.schema}.${v.name}.`);
      return undefined;
    } catch (e) {
      return e instanceof ApiError ? e.message : message(e);
    }
  }

  function saved(v: StoredView, text: string) {
    setOpened(v);
    setBaseline(graph);
    setDialog(undefined);
    setNotice({ text });
    cache.forgetViews();
    schemas.reload();
    notifyCatalogChanged();
    location.hash = viewHash(v);
  }

  function onSave() {
    if (!opened) return setDialog('save');
    // a layout-only change needs no review: nothing a query sees changes
    if (sql.trim() === opened.sql.trim())
      return void saveChanges(false).then((err) => err && setNotice({ text: err, error: true }));
    setDialog('review');
  }

  /** A schema renamed or deleted: lists reload; an open view of it is reopened under its new name. */
  async function changeSchema(change: () => Promise<unknown>): Promise<string | undefined> {
    try {
      const r = await change();
      schemas.reload();
      cache.forgetViews();
      notifyCatalogChanged();
      const renamed = r as { name?: string; id?: string } | undefined;
      if (opened && renamed?.name && schemas.data?.find((x) => x.id === renamed.id)?.name === opened.schema) {
        setOpened({ ...opened, schema: renamed.name });
        location.hash = `#/designer/${encodeURIComponent(renamed.name)}/${encodeURIComponent(opened.name)}`;
      }
      return undefined;
    } catch (e) {
      return message(e);
    }
  }

  /** Edited SQL back onto the canvas, once the tables it names are loaded; or why it stays SQL. */
  async function applySql(text: string) {
    try {
      await cache.loadFor(text);
    } catch (e) {
      return setEdited({ text, reason: message(e) });
    }
    const r = sqlToGraph(text, cache.resolve, new Map(graph.tables.map((t) => [t.alias, t.position])));
    if (!r.ok) return setEdited({ text, reason: r.reason });
    apply(() => r.graph);
    setEdited(undefined);
  }

  function newView() {
    const title = opened ? `${opened.schema}.${opened.name}` : 'the new view';
    if (unsaved && !confirm(`Discard your unsaved changes to ${title} and start a new view?`)) return;
    setOpened(undefined);
    setEdited(undefined);
    // a step of its own, so Undo brings the canvas back (as a new view) after all
    apply(() => EMPTY_GRAPH);
    setBaseline(EMPTY_GRAPH);
    setNotice(undefined);
    location.hash = '#/designer';
  }

  const actions = useMemo(
    () => ({
      toggleColumn: (ref: Parameters<typeof edit.toggleColumn>[1]) => apply((g) => edit.toggleColumn(g, ref)),
      removeTable: (alias: string) => apply((g) => edit.removeTable(g, alias)),
    }),
    [apply],
  );

  return (
    <main className="j-designer" data-testid="designer">
      <div className="j-toolbar j-designer-bar">
        <strong data-testid="designer-title">{opened ? `${opened.schema}.${opened.name}` : 'New view'}</strong>
        <button type="button" onClick={newView}>
          New
        </button>
        <button type="button" onClick={undo} disabled={!canUndo} title="Undo (Ctrl+Z)">
          Undo
        </button>
        <button type="button" onClick={redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)">
          Redo
        </button>
        {notice && (
          <span className={notice.error ? 'j-error' : 'j-ok'} role="status" data-testid="designer-notice">
            {notice.text}
          </span>
        )}
        <span className="j-spacer" />
        {opened && (
          <button type="button" onClick={() => setDialog('save')}>
            Save as new…
          </button>
        )}
        <button type="button" className="j-primary" onClick={onSave} disabled={sql.trim() === ''}>
          {opened ? 'Save changes…' : 'Save as view…'}
        </button>
      </div>
      <div className="j-designer-body">
        <Palette
          sources={catalog.sources}
          loading={catalog.loading}
          onAdd={(e) => void addTable(e)}
          schemas={schemas.data ?? []}
          onRenameSchema={(id, name) => changeSchema(() => designerApi.renameSchema(id, name))}
          onDeleteSchema={(id) => changeSchema(() => designerApi.deleteSchema(id))}
        />
        <div className="j-designer-center">
          {sqlOnly && (
            <p className="j-dwarn j-canvas-stale" role="note" data-testid="canvas-stale">
              The canvas cannot show the SQL being edited ({edited!.reason}): it shows the last view it could read. The
              SQL tab's text is what preview, plan and save use.
            </p>
          )}
          <DesignerActionsContext value={actions}>
            <ReactFlowProvider>
              <Canvas
                graph={graph}
                suggestions={suggestions}
                selectedJoin={selectedJoin}
                onDropTable={(payload, at) => void addTable(JSON.parse(payload) as CatalogEntry, at)}
                onMove={(alias, at) => apply((g) => edit.moveTable(g, alias, at))}
                onConnect={(l, r) => apply((g) => edit.addJoin(g, l, r))}
                onSelectJoin={setSelectedJoin}
                onRemoveTables={(aliases) => apply((g) => aliases.reduce(edit.removeTable, g))}
                onRemoveJoins={(ids) => apply((g) => ids.reduce(edit.removeJoin, g))}
              />
            </ReactFlowProvider>
          </DesignerActionsContext>
          <div className="j-tabs" role="tablist">
            {(['sql', 'preview', 'plan', 'lineage'] as const).map((t) =>
              t === 'lineage' && !opened ? null : (
                <button key={t} type="button" role="tab" aria-selected={bottom === t} onClick={() => setBottom(t)}>
                  {t === 'sql' ? 'SQL' : t === 'preview' ? 'Preview' : t === 'plan' ? 'Plan' : 'Lineage'}
                </button>
              ),
            )}
          </div>
          <div className="j-designer-bottom">
            {bottom === 'sql' && (
              <SqlPanel
                generated={generated}
                edited={edited}
                onEdit={() => setEdited({ text: generated })}
                onApply={(text) => void applySql(text)}
                onBackToCanvas={() => setEdited(undefined)}
                onType={(typed) => setEdited((e) => e && { ...e, typed })}
              />
            )}
            {bottom === 'preview' && <PreviewPanel sql={previewSql} />}
            {bottom === 'plan' && <PlanPanel sql={sql} />}
            {bottom === 'lineage' && opened && <LineagePanel schema={opened.schema} name={opened.name} />}
          </div>
        </div>
        <Inspector
          graph={graph}
          apply={apply}
          suggestions={suggestions}
          semantics={semantics}
          selectedJoin={selectedJoin}
          checked={checked}
        />
      </div>
      {dialog === 'save' && (
        <SaveDialog schemas={schemas.data ?? []} onSave={saveNew} onCancel={() => setDialog(undefined)} />
      )}
      {dialog === 'review' && opened && (
        <ReviewDialog view={opened} sql={sql} onConfirm={saveChanges} onCancel={() => setDialog(undefined)} />
      )}
    </main>
  );
}
