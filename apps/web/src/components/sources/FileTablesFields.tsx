import { emptyFileTable, suggestTableName, type FileTableDraft, type FilesDraft } from '../../lib/file-source-form.js';

/**
 * The files of a file source: a root folder and its tables, each a path or glob with its format,
 * CSV dialect and type overrides. With no table, every CSV, Parquet and JSON file in the root is one.
 */
export function FileTablesFields({
  draft,
  onChange,
  active,
  onActive,
}: {
  draft: FilesDraft;
  onChange(d: FilesDraft): void;
  /** the table the preview shows */
  active: number;
  onActive(i: number): void;
}) {
  const setTable = (i: number, patch: Partial<FileTableDraft>) =>
    onChange({ ...draft, tables: draft.tables.map((t, j) => (j === i ? { ...t, ...patch } : t)) });
  return (
    <>
      <label className="j-span-2">
        Root folder
        <input
          value={draft.root}
          onChange={(e) => onChange({ ...draft, root: e.target.value })}
          placeholder="/srv/junction/files/sales"
          spellCheck={false}
        />
      </label>
      <label className="j-span-2">
        DuckDB database file (optional)
        <input
          value={draft.file}
          onChange={(e) => onChange({ ...draft, file: e.target.value })}
          placeholder="warehouse.duckdb, read-only"
          spellCheck={false}
        />
      </label>
      <p className="j-muted j-small j-wide j-flush">
        Paths resolve in the root folder and must stay inside a folder the server allows (JUNCTION_FILE_ROOTS). With no
        table below, every CSV, Parquet and JSON file directly in the root is a table.
      </p>
      {draft.tables.map((t, i) => (
        <fieldset
          key={i}
          className={`j-scopes j-wide j-file-table${i === active ? ' j-reveal' : ''}`}
          onFocus={() => onActive(i)}
        >
          <legend>Table {t.name.trim() || suggestTableName(t.path) || i + 1}</legend>
          <div className="j-form-grid j-flush">
            <label>
              Table name
              <input
                value={t.name}
                onChange={(e) => setTable(i, { name: e.target.value })}
                placeholder={suggestTableName(t.path) || 'orders'}
                pattern="[a-z0-9_]+"
                title="Lower-case letters, digits and _"
              />
            </label>
            <label className="j-span-2">
              Path or glob
              <input
                value={t.path}
                onChange={(e) => setTable(i, { path: e.target.value })}
                placeholder="orders/*.csv"
                spellCheck={false}
              />
            </label>
            <label>
              Format
              <select
                value={t.format}
                onChange={(e) => setTable(i, { format: e.target.value as FileTableDraft['format'] })}
              >
                <option value="">From the extension</option>
                <option value="csv">CSV</option>
                <option value="parquet">Parquet</option>
                <option value="json">JSON</option>
              </select>
            </label>
            {t.format !== 'parquet' && t.format !== 'json' && (
              <>
                <label>
                  Delimiter
                  <input
                    value={t.delimiter}
                    onChange={(e) => setTable(i, { delimiter: e.target.value })}
                    placeholder="detected (\t for tab)"
                    maxLength={4}
                  />
                </label>
                <label>
                  Header row
                  <select
                    value={t.header}
                    onChange={(e) => setTable(i, { header: e.target.value as FileTableDraft['header'] })}
                  >
                    <option value="">Detected</option>
                    <option value="yes">Yes</option>
                    <option value="no">No</option>
                  </select>
                </label>
                <label>
                  Quote
                  <input
                    value={t.quote}
                    onChange={(e) => setTable(i, { quote: e.target.value })}
                    maxLength={1}
                    placeholder='" (default)'
                  />
                </label>
                <label>
                  Escape
                  <input
                    value={t.escape}
                    onChange={(e) => setTable(i, { escape: e.target.value })}
                    maxLength={1}
                    placeholder='" (default)'
                  />
                </label>
                <label>
                  NULL values
                  <input
                    value={t.nullValues}
                    onChange={(e) => setTable(i, { nullValues: e.target.value })}
                    placeholder="NA, \N (comma-separated)"
                  />
                </label>
              </>
            )}
            {t.format === 'json' && (
              <label>
                JSON layout
                <select
                  value={t.jsonFormat}
                  onChange={(e) => setTable(i, { jsonFormat: e.target.value as FileTableDraft['jsonFormat'] })}
                >
                  <option value="">Detected</option>
                  <option value="newline_delimited">One document per line</option>
                  <option value="array">An array of documents</option>
                </select>
              </label>
            )}
            <label className="j-span-2">
              Type overrides
              <textarea
                rows={3}
                value={t.columns}
                onChange={(e) => setTable(i, { columns: e.target.value })}
                placeholder={'total: decimal(15,2)\nordered_at: date'}
                spellCheck={false}
                className="j-mono"
              />
            </label>
          </div>
          <div className="j-row">
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
      <div className="j-wide">
        <button
          type="button"
          onClick={() => {
            onChange({ ...draft, tables: [...draft.tables, emptyFileTable()] });
            onActive(draft.tables.length);
          }}
        >
          Add table
        </button>
      </div>
    </>
  );
}
