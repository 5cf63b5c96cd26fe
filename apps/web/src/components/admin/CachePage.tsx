import { useState, type FormEvent } from 'react';
import { adminApi, materializationBody } from '../../lib/admin-api.js';
import { designerApi } from '../../lib/designer-api.js';
import { cacheApi, type CacheCounters, type CacheEntry, type MaterializationStatus, type PurgeScope } from '../../lib/cache-api.js';
import { formatTime } from '../../lib/format-time.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

function hitRate(s: CacheCounters): string {
  const asked = s.hits + s.misses;
  return asked === 0 ? '–' : `${Math.round((100 * s.hits) / asked)} %`;
}

/** One line per cache: the counters an admin tunes budgets by. */
function CounterRow({ name, s }: { name: string; s: CacheCounters }) {
  return (
    <tr data-testid={`cache-stats-${name.toLowerCase()}`}>
      <th scope="row">{name}</th>
      <td className="j-num">{s.hits}</td>
      <td className="j-num">{s.misses}</td>
      <td className="j-num">{hitRate(s)}</td>
      <td className="j-num">{s.entries}</td>
      <td className="j-num">
        {formatBytes(s.memoryBytes)} <span className="j-muted">of {formatBytes(s.maxMemoryBytes)}</span>
      </td>
      <td className="j-num">
        {s.maxDiskBytes === 0 ? (
          <span className="j-muted">none</span>
        ) : (
          <>
            {formatBytes(s.diskBytes)} <span className="j-muted">of {formatBytes(s.maxDiskBytes)}</span>
          </>
        )}
      </td>
      <td className="j-num">{s.evictions}</td>
      <td className="j-num">{s.invalidations + s.expirations}</td>
      <td className="j-num">{s.rejections}</td>
    </tr>
  );
}

function EntryTable({
  label,
  entries,
  onPurge,
}: {
  label: string;
  entries: readonly CacheEntry[];
  onPurge: (scope: PurgeScope, what: string) => void;
}) {
  return (
    <table className="j-table j-compact" aria-label={label}>
      <thead>
        <tr>
          <th>Statement</th>
          <th>Reads</th>
          <th>Age</th>
          <th>Rows</th>
          <th>Size</th>
          <th>Hits</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e, i) => (
          <tr key={`${e.label}-${i}`}>
            <td className="j-mono j-small j-cache-sql" title={e.label}>
              {e.label}
            </td>
            <td className="j-small">
              {e.sources.map((s) => (
                <button key={s} type="button" className="j-link" title={`Purge what read ${s}`} onClick={() => onPurge({ source: s }, `source ${s}`)}>
                  {s}
                </button>
              ))}
              {e.views.map((v) => (
                <button key={v} type="button" className="j-link" title={`Purge what read ${v}`} onClick={() => onPurge({ view: v }, `view ${v}`)}>
                  {v}
                </button>
              ))}
            </td>
            <td className="j-num">{Math.round(e.ageSeconds)} s</td>
            <td className="j-num">{e.rows}</td>
            <td className="j-num">
              {formatBytes(e.bytes)}
              {e.where === 'disk' && <span className="j-badge">disk</span>}
            </td>
            <td className="j-num">{e.hits}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const STATUS_TEXT: Record<MaterializationStatus['status'], string> = {
  never: 'not yet refreshed',
  ok: 'ok',
  failed: 'last refresh failed',
  outdated: 'view changed since',
};

/** Each materialized view: whether queries read its stored rows, how many, how old, how long a refresh took. */
function MaterializationTable({
  list,
  onRefresh,
  onStop,
}: {
  list: readonly MaterializationStatus[];
  onRefresh: (view: string) => void;
  onStop: (view: string) => void;
}) {
  return (
    <table className="j-table j-compact j-table-middle" aria-label="Materialized views">
      <thead>
        <tr>
          <th>View</th>
          <th>Status</th>
          <th>Rows</th>
          <th>Size</th>
          <th>Last refresh</th>
          <th>Took</th>
          <th>Schedule</th>
          <th>Used while younger than</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {list.map((m) => (
          <tr key={m.view} data-testid={`materialization-${m.view}`}>
            <td>{m.view}</td>
            <td className={m.status === 'ok' ? 'j-ok' : m.status === 'failed' ? 'j-error' : 'j-muted'}>
              {m.refreshing ? 'refreshing…' : STATUS_TEXT[m.status]}
              {m.error && <div className="j-small j-error">{m.error}</div>}
            </td>
            <td className="j-num">{m.rows ?? '–'}</td>
            <td className="j-num">{m.bytes === null ? '–' : formatBytes(m.bytes)}</td>
            <td className="j-small j-nowrap">{m.refreshedAt ? formatTime(m.refreshedAt) : '–'}</td>
            <td className="j-num">{m.durationMs === null ? '–' : `${m.durationMs} ms`}</td>
            <td className="j-num">{m.intervalSeconds === null ? 'on demand' : `every ${m.intervalSeconds} s`}</td>
            <td className="j-num">{m.maxStalenessSeconds} s</td>
            <td className="j-actions">
              <button
                type="button"
                aria-label={`Refresh ${m.view}`}
                disabled={m.refreshing}
                onClick={() => onRefresh(m.view)}
              >
                Refresh
              </button>
              <button type="button" className="j-danger" disabled={m.refreshing} onClick={() => onStop(m.view)}>
                Stop
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Materialize a view of a virtual schema into Junction's own store, or change the schedule of
 * one that is: the same PUT does both. The first refresh runs at once.
 */
function MaterializeForm({
  materialized,
  onDone,
}: {
  materialized: readonly MaterializationStatus[];
  onDone: () => void;
}) {
  const views = useAsync(() => designerApi.views());
  const [view, setView] = useState('');
  const [every, setEvery] = useState('');
  const [staleness, setStaleness] = useState('3600');
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);
  const names = (views.data ?? []).map((v) => `${v.schema}.${v.name}`).sort();
  const existing = materialized.find((m) => m.view === view);

  const choose = (v: string) => {
    setView(v);
    // a view already materialized opens with its own settings, so Save changes only what is edited
    const m = materialized.find((x) => x.view === v);
    if (m) {
      setEvery(m.intervalSeconds === null ? '' : String(m.intervalSeconds));
      setStaleness(String(m.maxStalenessSeconds));
    }
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    setDone(undefined);
    const i = view.indexOf('.');
    if (i < 0) return setError('Choose a view first.');
    setBusy(true);
    try {
      await adminApi.materialize(view.slice(0, i), view.slice(i + 1), materializationBody({ interval: every, staleness }));
      if (existing) {
        setDone(`Changed the settings of ${view}.`);
      } else {
        // a new materialization holds no rows until its first refresh: start that one now
        setDone(`Materialized ${view}; its first refresh is running.`);
        void cacheApi.refresh(view).then(
          (m) => setDone(`Materialized ${view}: ${m.rows ?? 0} ${m.rows === 1 ? 'row' : 'rows'} stored.`),
          (err: unknown) => setError(`Materialized ${view}, but its first refresh failed: ${friendlyError(err)}`),
        ).finally(onDone);
      }
      setView('');
      setEvery('');
      setStaleness('3600');
      onDone();
    } catch (err) {
      setError(friendlyError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-card" aria-label="Materialize a view" onSubmit={(e) => void submit(e)}>
      <h2>{existing ? `Settings of ${view}` : 'Materialize a view'}</h2>
      <p className="j-muted j-small">
        Queries read the stored rows while they are younger than the staleness allowed, the view itself afterwards.
      </p>
      <div className="j-form-grid">
        <label className="j-span-2">
          View
          <select value={view} onChange={(e) => choose(e.target.value)} required>
            <option value="">{views.loading ? 'Loading views…' : 'Choose a view…'}</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
                {materialized.some((m) => m.view === n) ? ' (materialized)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          Refresh every (s)
          <input
            type="number"
            min={1}
            max={30 * 86400}
            value={every}
            placeholder="only on demand"
            onChange={(e) => setEvery(e.target.value)}
          />
        </label>
        <label>
          Use while younger than (s)
          <input
            type="number"
            min={1}
            max={365 * 86400}
            required
            value={staleness}
            onChange={(e) => setStaleness(e.target.value)}
          />
        </label>
      </div>
      {views.data?.length === 0 && (
        <p className="j-muted j-small">There is no view yet: create one in the Designer first.</p>
      )}
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      <div className="j-row">
        <button type="submit" className="j-primary" disabled={busy || view === ''}>
          {busy ? 'Saving…' : existing ? 'Save settings' : 'Materialize'}
        </button>
        {done && (
          <span className="j-ok" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}

/**
 * The result and fragment caches: hits, misses, bytes, entries and evictions, what each entry
 * read, and purging (all, or what read one source or view).
 */
export function CachePage() {
  const state = useAsync(() => cacheApi.state());
  const materialized = useAsync(() => cacheApi.materializations());
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();

  const purge = async (scope: PurgeScope, what: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      const { purged } = await cacheApi.purge(scope);
      setMessage(`Purged ${purged} ${purged === 1 ? 'entry' : 'entries'} (${what}).`);
      state.reload();
    } catch (e) {
      setError(friendlyError(e));
    }
  };

  const refresh = async (view: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      const m = await cacheApi.refresh(view);
      setMessage(`Refreshed ${view}: ${m.rows ?? 0} rows.`);
    } catch (e) {
      setError(friendlyError(e));
    }
    materialized.reload();
  };

  const stop = async (view: string) => {
    if (!confirm(`Stop materializing ${view}? Queries read the view itself again and the stored rows are dropped.`)) return;
    setError(undefined);
    setMessage(undefined);
    const i = view.indexOf('.');
    try {
      await adminApi.stopMaterializing(view.slice(0, i), view.slice(i + 1));
      setMessage(`Stopped materializing ${view}.`);
    } catch (e) {
      setError(friendlyError(e));
    }
    materialized.reload();
  };

  const d = state.data;
  return (
    <>
      <h1>Cache</h1>
      <p className="j-muted j-intro">
        A statement asks for the result cache with a leading <code>/*+ cache(ttl=SECONDS) */</code> (or by reading
        only views whose SQL starts with one); a source shares its fragments when its fragmentCache option allows
        it. Users only ever get answers their own grants admit.
      </p>
      <div className="j-row">
        <button type="button" onClick={() => void purge({}, 'everything')}>
          Purge all
        </button>
        <button
          type="button"
          onClick={() => {
            state.reload();
            materialized.reload();
          }}
        >
          Refresh
        </button>
        {message && (
          <span className="j-ok" role="status">
            {message}
          </span>
        )}
      </div>
      {(state.error || error) && (
        <p className="j-error" role="alert">
          {error ?? `Could not load the cache: ${state.error?.message}`}
        </p>
      )}
      {state.loading && !d && <p className="j-muted">Loading…</p>}
      {d && (
        <>
          <table className="j-table j-compact" aria-label="Cache statistics">
            <thead>
              <tr>
                <th>Cache</th>
                <th>Hits</th>
                <th>Misses</th>
                <th>Hit rate</th>
                <th>Entries</th>
                <th>Memory</th>
                <th>Disk</th>
                <th>Evictions</th>
                <th>Purged or expired</th>
                <th>Too large</th>
              </tr>
            </thead>
            <tbody>
              <CounterRow name="Results" s={d.results.stats} />
              <CounterRow name="Fragments" s={d.fragments.stats} />
            </tbody>
          </table>
          <h2 className="j-subhead">Results</h2>
          {d.results.entries.length === 0 ? (
            <p className="j-empty" data-testid="cache-results-empty">
              No stored results.
            </p>
          ) : (
            <EntryTable label="Cached results" entries={d.results.entries} onPurge={(s, w) => void purge(s, w)} />
          )}
          <h2 className="j-subhead">Fragments</h2>
          {d.fragments.entries.length === 0 ? (
            <p className="j-empty" data-testid="cache-fragments-empty">
              No stored fragments.
            </p>
          ) : (
            <EntryTable label="Cached fragments" entries={d.fragments.entries} onPurge={(s, w) => void purge(s, w)} />
          )}
        </>
      )}
      <h2 className="j-subhead">Materialized views</h2>
      {materialized.data?.length === 0 && (
        <p className="j-empty" data-testid="materializations-empty">
          No view is materialized yet. A materialized view keeps its rows in Junction&apos;s own store, so queries
          need not read its sources each time.
        </p>
      )}
      {!!materialized.data?.length && (
        <MaterializationTable list={materialized.data} onRefresh={(v) => void refresh(v)} onStop={(v) => void stop(v)} />
      )}
      <MaterializeForm
        materialized={materialized.data ?? []}
        onDone={() => {
          setMessage(undefined);
          materialized.reload();
        }}
      />
    </>
  );
}
