import { useDeferredValue, useState } from 'react';
import { filterCatalog, type CatalogSource } from '../../lib/catalog.js';

interface Props {
  catalog: readonly CatalogSource[];
  loading: boolean;
  error?: string;
  onInsert(text: string): void;
  onReload(): void;
}

export function CatalogTree({ catalog, loading, error, onInsert, onReload }: Props) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const shown = filterCatalog(catalog, deferred);
  const open = deferred.trim() !== '';
  return (
    <div className="catalog">
      <div className="row">
        <input type="search" placeholder="Search tables and columns" value={query} onChange={(e) => setQuery(e.target.value)} aria-label="Search catalog" />
        <button type="button" onClick={onReload} title="Reload catalog" aria-label="Reload catalog">
          ↻
        </button>
      </div>
      {error && <p className="error">{error}</p>}
      {loading && catalog.length === 0 && <p className="muted">Loading catalog…</p>}
      {!loading && shown.length === 0 && <p className="muted">{open ? 'Nothing matches.' : 'No sources yet.'}</p>}
      <ul className="tree" role="tree" aria-label="Catalog">
        {shown.map((s) => (
          <li key={s.name} role="treeitem">
            <details open={open || shown.length <= 4}>
              <summary data-testid={`catalog-source-${s.name}`}>
                <span className="tree-source">{s.name}</span> {s.engine && <span className="muted small">{s.engine}</span>}
              </summary>
              <ul>
                {s.schemas.map((sc) => (
                  <li key={sc.name}>
                    <details open={open || s.schemas.length === 1}>
                      <summary className="muted">{sc.name}</summary>
                      <ul>
                        {sc.tables.map((t) => (
                          <li key={t.name}>
                            <details open={open}>
                              <summary data-testid={`catalog-table-${s.name}.${t.name}`} onDoubleClick={() => onInsert(`${s.name}.${t.name}`)} title="Double-click to insert">
                                {t.name}
                                {t.kind === 'view' && <span className="muted small"> view</span>}
                              </summary>
                              <ul className="columns">
                                {t.columns.map((c) => (
                                  <li key={c.name} onDoubleClick={() => onInsert(c.name)} title={c.nativeType ?? c.type}>
                                    <span>{c.name}</span> <span className="coltype">{c.type}</span>
                                  </li>
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
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}
