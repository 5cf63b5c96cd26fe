import { useDeferredValue, useEffect, useState } from 'react';
import { api, type CatalogHit } from '../../lib/api.js';
import { cacheApi, type MaterializationStatus } from '../../lib/cache-api.js';
import { materializationLabel } from '../../lib/materialization-label.js';
import { filterCatalog, type CatalogSource, type CatalogTable } from '../../lib/catalog.js';
import { statusBadge } from '../../lib/source-status.js';

interface Props {
  sources: readonly CatalogSource[];
  loading: boolean;
  error?: string;
  onOpenTable(source: string, schema: string, table: string): void;
  onInsert(text: string): void;
  onReload(): void;
  /** a view of a virtual schema opened as its SQL in the editor */
  onOpenViewSql?(schema: string, view: string): void;
  /** a view run as it is (SELECT *), which needs only a grant on it */
  onRunView?(schema: string, view: string): void;
  /** may open a view on the designer's canvas (viewers may not: the designer refuses them) */
  canDesign?: boolean;
  /** source name → status, read again every few seconds: what is not online is marked */
  statuses?: ReadonlyMap<string, string>;
}

/** Column hits come from the server's search: most tables' columns are not loaded yet. */
function useColumnHits(query: string): CatalogHit[] {
  const [hits, setHits] = useState<CatalogHit[]>([]);
  useEffect(() => {
    const q = query.trim();
    if (q === '') return setHits([]);
    let live = true;
    const t = setTimeout(() => {
      api.searchCatalog(q).then(
        (h) => live && setHits(h.filter((x) => x.kind === 'column')),
        () => live && setHits([]),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [query]);
  return hits;
}

/**
 * Materializations of the views the caller may see, fetched again when the set of views changes
 * (not on every catalog update: opening a table loads its columns and replaces the sources list).
 */
function useMaterializations(sources: readonly CatalogSource[]): Map<string, MaterializationStatus> {
  const [byView, setByView] = useState(new Map<string, MaterializationStatus>());
  const views = sources
    .filter((s) => s.engine === 'virtual')
    .flatMap((s) => s.schemas.flatMap((sc) => sc.tables.map((t) => `${s.name}.${t.name}`)))
    .join('\n');
  useEffect(() => {
    if (views === '') return;
    let live = true;
    cacheApi.materializations().then(
      (ms) => live && setByView(new Map(ms.map((m) => [m.view.toLowerCase(), m]))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [views]);
  return byView;
}

export function CatalogTree({
  sources,
  loading,
  error,
  onOpenTable,
  onInsert,
  onReload,
  onOpenViewSql,
  onRunView,
  canDesign = true,
  statuses,
}: Props) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const hits = useColumnHits(deferred);
  const shown = filterCatalog(
    sources,
    deferred,
    hits.map((h) => ({ source: h.source, schema: h.schema, table: h.table, column: h.column ?? '', type: h.type })),
  );
  const searching = deferred.trim() !== '';
  const materialized = useMaterializations(sources);
  return (
    <div className="j-catalog">
      <div className="j-row">
        <input
          type="search"
          placeholder="Search tables and columns"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Search catalog"
        />
        <button type="button" onClick={onReload} title="Reload catalog" aria-label="Reload catalog">
          ↻
        </button>
      </div>
      {error && <p className="j-error">{error}</p>}
      {loading && sources.length === 0 && <p className="j-muted">Loading catalog…</p>}
      {!loading && shown.length === 0 && (
        <p className="j-muted">{searching ? 'Nothing matches.' : 'No sources yet.'}</p>
      )}
      <ul className="j-tree" aria-label="Catalog">
        {shown.map((s) => (
          <li key={s.name}>
            <details open={searching || shown.length <= 6}>
              <summary data-testid={`catalog-source-${s.name}`}>
                <span className="j-tree-source">{s.name}</span>{' '}
                {s.engine && (
                  <span className="j-muted j-small">{s.engine === 'virtual' ? 'virtual schema' : s.engine}</span>
                )}
                <SourceStatus name={s.name} status={statuses?.get(s.name) ?? s.status} />
              </summary>
              <ul>
                {/* a virtual schema holds its views directly: there is no schema level to open */}
                {s.engine === 'virtual' &&
                  s.schemas.flatMap((sc) =>
                    sc.tables.map((t) => (
                      <TableNode
                        key={t.name}
                        source={s.name}
                        table={t}
                        open={searching}
                        onOpen={() => undefined}
                        onInsert={onInsert}
                        // a viewer's editor is read-only and ad hoc SQL is refused them: Run is what they get
                        onOpenViewSql={canDesign && onOpenViewSql ? () => onOpenViewSql(s.name, t.name) : undefined}
                        onRunView={onRunView && (() => onRunView(s.name, t.name))}
                        canDesign={canDesign}
                        materialization={materialized.get(`${s.name}.${t.name}`.toLowerCase())}
                      />
                    )),
                  )}
                {s.engine !== 'virtual' &&
                  s.schemas.map((sc) => (
                    <li key={sc.name}>
                      <details open={searching || s.schemas.length === 1}>
                        <summary className="j-muted">{sc.name}</summary>
                        <ul>
                          {sc.tables.map((t) => (
                            <TableNode
                              key={t.name}
                              source={s.name}
                              table={t}
                              open={searching}
                              onOpen={() => onOpenTable(s.name, sc.name, t.name)}
                              onInsert={onInsert}
                            />
                          ))}
                        </ul>
                      </details>
                    </li>
                  ))}
              </ul>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A source that is not online says so beside its name: its tables are listed but would fail. */
function SourceStatus({ name, status }: { name: string; status: string | undefined }) {
  const badge = statusBadge(status);
  if (!badge) return null;
  return (
    <>
      {' '}
      <span
        className={`j-status j-status-${badge} j-small`}
        title="Queries reading this source fail until it is back; the Sources page says why."
        data-testid={`catalog-status-${name}`}
      >
        {badge}
      </span>
    </>
  );
}

function TableNode({
  source,
  table,
  open,
  onOpen,
  onInsert,
  onOpenViewSql,
  onRunView,
  canDesign,
  materialization,
}: {
  source: string;
  table: CatalogTable;
  open: boolean;
  onOpen(): void;
  onInsert(text: string): void;
  onOpenViewSql?: () => void;
  onRunView?: () => void;
  canDesign?: boolean;
  materialization?: MaterializationStatus;
}) {
  const m = materialization && materializationLabel(materialization);
  return (
    <li>
      <details open={open} onToggle={(e) => e.currentTarget.open && !table.columns && onOpen()}>
        <summary
          className={onRunView || onOpenViewSql ? 'j-tree-view' : undefined}
          data-testid={`catalog-table-${source}.${table.name}`}
          onDoubleClick={() => onInsert(`${source}.${table.name}`)}
          title="Double-click to insert"
        >
          {table.name}
          {table.kind === 'view' && <span className="j-muted j-small"> view</span>}
          {/* the actions come before the materialization note, which is cut short rather than push them out of view;
              "Rows", not "Run": the toolbar's Run must stay the only button of that name */}
          {onRunView && (
            <>
              {' '}
              <button
                type="button"
                className="j-link j-small"
                onClick={onRunView}
                title="Run the view: its rows, as SELECT * FROM it"
                aria-label={`Rows of ${source}.${table.name}`}
              >
                Rows
              </button>
            </>
          )}
          {onOpenViewSql && (
            <>
              {' '}
              <button
                type="button"
                className="j-link j-small"
                onClick={onOpenViewSql}
                title="Open its SQL in the editor"
              >
                SQL
              </button>
            </>
          )}
          {onOpenViewSql && canDesign && (
            <>
              {' '}
              <a
                className="j-small"
                href={`#/designer/${encodeURIComponent(source)}/${encodeURIComponent(table.name)}`}
              >
                canvas
              </a>
            </>
          )}
          {m && (
            <span
              className="j-muted j-small"
              title={m.title}
              data-testid={`catalog-materialization-${source}.${table.name}`}
            >
              {' '}
              · {m.text}
            </span>
          )}
        </summary>
        <ul className="j-columns">
          {table.columns === undefined && <li className="j-muted j-small">loading…</li>}
          {table.columns?.map((c) => (
            <li key={c.name} onDoubleClick={() => onInsert(c.name)} title={c.nativeType ?? c.type}>
              <span>{c.name}</span> <span className="j-coltype">{c.type}</span>
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}
