import { useDeferredValue, useState } from 'react';
import { filterCatalog, type CatalogSource } from '../../lib/catalog.js';
import { DRAG_TYPE } from './Canvas.js';
import type { VirtualSchema } from '../../lib/designer-api.js';
import { SchemaActions } from './SchemaActions.js';
import type { CatalogEntry } from './table-cache.js';

interface Props {
  sources: readonly CatalogSource[];
  loading: boolean;
  onAdd(e: CatalogEntry): void;
  /** virtual schemas, empty ones included (the catalog lists only those with views) */
  schemas: readonly VirtualSchema[];
  onRenameSchema(id: string, name: string): Promise<string | undefined>;
  onDeleteSchema(id: string): Promise<string | undefined>;
}

/** The catalog to drag from: sources' tables and virtual schemas' views (Enter adds one too). */
export function Palette({ sources, loading, onAdd, schemas, onRenameSchema, onDeleteSchema }: Props) {
  const [query, setQuery] = useState('');
  // empty virtual schemas are listed too, to rename or delete
  const all = [
    ...sources,
    ...schemas
      .filter((v) => !sources.some((s) => s.name === v.name))
      .map((v) => ({ name: v.name, engine: 'virtual', schemas: [] })),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const shown = filterCatalog(all, useDeferredValue(query));
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
            <div className="j-palette-source" data-testid={`palette-source-${s.name}`}>
              {s.name} <span className="j-muted j-small">{s.engine === 'virtual' ? 'virtual schema' : s.engine}</span>
              {s.engine === 'virtual' &&
                schemas
                  .filter((v) => v.name === s.name)
                  .map((v) => (
                    <SchemaActions
                      key={v.id}
                      schema={v}
                      onRename={(name) => onRenameSchema(v.id, name)}
                      onDelete={() => onDeleteSchema(v.id)}
                    />
                  ))}
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
