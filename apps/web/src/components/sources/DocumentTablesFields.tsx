import {
  emptyDocColumn,
  emptyDocTable,
  type DocColumnDraft,
  type DocTableDraft,
  type DocumentsDraft,
} from '../../lib/file-source-form.js';

const COLUMN_TYPES = [
  'text',
  'integer',
  'bigint',
  'decimal(15,2)',
  'double precision',
  'boolean',
  'date',
  'timestamp',
  'timestamptz',
];

/**
 * The tables of a document source: each a file (or URL) of XML or JSON, a row path that selects
 * its rows and a path per column, relative to the row. The secret headers are the source's
 * password: typed, sent, never shown again.
 */
export function DocumentTablesFields({
  draft,
  onChange,
  headers,
  onHeaders,
  hasHeaders,
  active,
  onActive,
}: {
  draft: DocumentsDraft;
  onChange(d: DocumentsDraft): void;
  headers: string;
  onHeaders(text: string): void;
  /** editing: headers are stored (blank keeps them) */
  hasHeaders?: boolean;
  active: number;
  onActive(i: number): void;
}) {
  const setTable = (i: number, patch: Partial<DocTableDraft>) =>
    onChange({ ...draft, tables: draft.tables.map((t, j) => (j === i ? { ...t, ...patch } : t)) });
  const setColumn = (i: number, k: number, patch: Partial<DocColumnDraft>) =>
    setTable(i, { columns: draft.tables[i].columns.map((c, j) => (j === k ? { ...c, ...patch } : c)) });
  return (
    <>
      <label className="j-span-2">
        Root folder
        <input
          value={draft.root}
          onChange={(e) => onChange({ ...draft, root: e.target.value })}
          placeholder="/srv/junction/files/feeds"
          spellCheck={false}
        />
      </label>
      <div className="j-span-2 j-field">
        <label>
          Secret HTTP headers (JSON, write-only)
          <textarea
            rows={2}
            value={headers}
            onChange={(e) => onHeaders(e.target.value)}
            placeholder={hasHeaders ? 'unchanged' : '{"*": {"Authorization": "Bearer …"}}'}
            spellCheck={false}
            autoComplete="off"
            className="j-mono j-secret"
            aria-describedby="j-doc-headers-hint"
          />
        </label>
        <p id="j-doc-headers-hint" className="j-muted j-small j-flush">
          Only for tables read from a URL: sent with their requests, per table name or &quot;*&quot; for all. Not shown
          again once saved{hasHeaders ? '; leave blank to keep the stored ones' : ''}.
        </p>
      </div>
      {draft.tables.map((t, i) => (
        <fieldset
          key={i}
          className={`j-scopes j-wide j-file-table${i === active ? ' j-reveal' : ''}`}
          onFocus={() => onActive(i)}
        >
          <legend>Table {t.name.trim() || i + 1}</legend>
          <div className="j-form-grid j-flush">
            <label>
              Table name
              <input
                value={t.name}
                onChange={(e) => setTable(i, { name: e.target.value })}
                placeholder="accounts"
                pattern="[a-z0-9_]+"
                title="Lower-case letters, digits and _"
              />
            </label>
            <label>
              Format
              <select
                value={t.format}
                onChange={(e) => setTable(i, { format: e.target.value as DocTableDraft['format'] })}
              >
                <option value="xml">XML</option>
                <option value="json">JSON</option>
              </select>
            </label>
            <label>
              Read from
              <select value={t.from} onChange={(e) => setTable(i, { from: e.target.value as DocTableDraft['from'] })}>
                <option value="path">A file (path or glob)</option>
                <option value="url">A URL</option>
              </select>
            </label>
            <label className="j-span-2">
              {t.from === 'url' ? 'URL' : 'File path'}
              <input
                value={t.location}
                onChange={(e) => setTable(i, { location: e.target.value })}
                placeholder={t.from === 'url' ? 'https://data.example.com/accounts.xml' : 'customers/*.xml'}
                spellCheck={false}
              />
            </label>
            <label className="j-span-2">
              Row path
              <input
                value={t.rowPath}
                onChange={(e) => setTable(i, { rowPath: e.target.value })}
                placeholder={t.format === 'xml' ? '/Customer/Accounts/Account' : '$.accounts[*]'}
                spellCheck={false}
                className="j-mono"
              />
            </label>
            {t.format === 'xml' && (
              <label className="j-span-2">
                Namespaces
                <textarea
                  rows={2}
                  value={t.namespaces}
                  onChange={(e) => setTable(i, { namespaces: e.target.value })}
                  placeholder="c = http://example.com/customer"
                  spellCheck={false}
                  className="j-mono"
                />
              </label>
            )}
          </div>
          <table className="j-table j-doc-columns">
            <thead>
              <tr>
                <th>Column</th>
                <th>Path (from the row)</th>
                <th>Type</th>
                <th>
                  <span className="j-sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {t.columns.map((c, k) => (
                <tr key={k}>
                  <td>
                    <input
                      aria-label="Column name"
                      value={c.name}
                      onChange={(e) => setColumn(i, k, { name: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label="Column path"
                      value={c.path}
                      onChange={(e) => setColumn(i, k, { path: e.target.value })}
                      placeholder={t.format === 'xml' ? '@id, Balance/Amount, ../../@id' : '$.balance.amount'}
                      spellCheck={false}
                      className="j-mono"
                    />
                  </td>
                  <td>
                    <input
                      aria-label="Column type"
                      list="j-doc-types"
                      value={c.type}
                      onChange={(e) => setColumn(i, k, { type: e.target.value })}
                    />
                  </td>
                  <td className="j-actions">
                    <button
                      type="button"
                      className="j-link"
                      onClick={() => setTable(i, { columns: t.columns.filter((_, j) => j !== k) })}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="j-row">
            <button type="button" onClick={() => setTable(i, { columns: [...t.columns, emptyDocColumn()] })}>
              Add column
            </button>
            <span className="j-spacer" />
            <button
              type="button"
              className="j-link"
              onClick={() => {
                onChange({ ...draft, tables: draft.tables.filter((_, j) => j !== i) });
                onActive(Math.max(0, Math.min(active, draft.tables.length - 2)));
              }}
            >
              Remove table
            </button>
          </div>
        </fieldset>
      ))}
      <datalist id="j-doc-types">
        {COLUMN_TYPES.map((ty) => (
          <option key={ty} value={ty} />
        ))}
      </datalist>
      <div className="j-wide">
        <button
          type="button"
          onClick={() => {
            onChange({ ...draft, tables: [...draft.tables, emptyDocTable()] });
            onActive(draft.tables.length);
          }}
        >
          Add table
        </button>
      </div>
    </>
  );
}
