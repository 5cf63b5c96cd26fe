import { useDeferredValue, useState } from 'react';
import { filterCatalog, type CatalogSource } from '../../lib/catalog.js';
import { DRAG_TYPE } from './Canvas.js';
import type { CatalogEntry } from './table-cache.js';

interface Props {
  sources: readonly CatalogSource[];
  loading: boolean;
  onAdd(e: CatalogEntry): void;
}

/** The catalog to drag from: sources' tables and virtual schemas' views (Enter adds one too). */
export function Palette({ sources, loading, onAdd }: Props) {
  const [query, setQuery] = useState('');
  const shown = filterCatalog(sources, useDeferredValue(query));
  return (
    <aside className="j-palette" aria-label="Tables and views">
      <input
        type="search"
        placeholder="Filter tables and views"
        aria-label="Filter tables and views"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {loading && sources.length === 0 && <p className="j-muted">Loading catalog…</p>}
      <ul className="j-palette-list">
        {shown.map((s) => (
          <li key={s.name}>
            <div className="j-palette-source">
              {s.name} <span className="j-muted j-small">{s.engine === 'virtual' ? 'virtual schema' : s.engine}</span>
            </div>
            <ul>
              {s.schemas.flatMap((sc) =>
                sc.tables.map((t) => {
                  const entry = { source: s.name, schema: sc.name, table: t.name };
                  const label = sc.name === (s.defaultSchema ?? sc.name) ? t.name : `${sc.name}.${t.name}`;
                  return (
                    <li
                      key={`${sc.name}.${t.name}`}
                      className="j-palette-item"
                      draggable
                      tabIndex={0}
                      data-testid={`palette-${s.name}.${label}`}
                      title="Drag onto the canvas (or press Enter)"
                      onDragStart={(e) => {
                        e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(entry));
                        e.dataTransfer.effectAllowed = 'copy';
                      }}
                      onKeyDown={(e) => e.key === 'Enter' && onAdd(entry)}
                    >
                      <span className="j-palette-icon" aria-hidden>
                        {t.kind === 'view' ? '◇' : '▦'}
                      </span>
                      {label}
                    </li>
                  );
                }),
              )}
            </ul>
          </li>
        ))}
      </ul>
    </aside>
  );
}
