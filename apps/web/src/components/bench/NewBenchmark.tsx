import { useEffect, useState } from 'react';
import { api, type Source, type User } from '../../lib/api.js';
import type { ApiError } from '../../lib/api-error.js';
import { benchApi, type BenchQuery, type LoadJob, type Phase, type Preset } from '../../lib/bench-api.js';
import { notifyCatalogChanged } from '../../lib/catalog-events.js';
import { forTargets, shortened } from '../../lib/bench-phases.js';
import { PhaseEditor, newPhase } from './PhaseEditor.js';
import { QueryEditor } from './QueryEditor.js';

const LAYOUT = ['dbA', 'dbB', 'dbC', 'dbD'] as const;
const LAYOUT_HINT: Record<string, string> = {
  dbA: 'orders, lineitem',
  dbB: 'customer',
  dbC: 'part, supplier, partsupp',
  dbD: 'nation, region, customer',
};

const CUSTOM = 'custom';

/**
 * Define a benchmark from a preset or from queries of one's own: which registered sources play
 * dbA–dbD, which one holds all eight tables for the direct runs, the scale the data has, and
 * the phases with their settings. Admins can load the data into the chosen sources first (with
 * a progress bar).
 */
export function NewBenchmark({ user, onStarted }: { user: User; onStarted(runId: string): void }) {
  const [presets, setPresets] = useState<Preset[]>([]);
  const [sources, setSources] = useState<Source[]>([]);
  const [preset, setPreset] = useState('jdv');
  const [name, setName] = useState('');
  const [map, setMap] = useState<Record<string, string>>({
    dbA: 'dbA',
    dbB: 'dbB',
    dbC: 'dbC',
    dbD: 'dbD',
    direct: '',
  });
  const [sf, setSf] = useState('0.01');
  const [phases, setPhases] = useState<Phase[]>([]);
  const [custom, setCustom] = useState<BenchQuery[]>([{ id: 'Q1', federated: '' }]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [load, setLoad] = useState<LoadJob>();
  // the trino mode is offered while the server's Trino can run queries (the presets add it then)
  const [trino, setTrino] = useState(false);

  useEffect(() => {
    benchApi.presets().then(
      (p) => {
        setPresets(p);
        setPhases(p.find((x) => x.id === 'jdv')?.phases ?? []);
      },
      (e: ApiError) => setError(e.message),
    );
    api.sources().then(setSources, () => undefined);
    api.engines().then((e) => setTrino(e.trino?.available ?? false), () => undefined);
  }, []);

  useEffect(() => {
    if (!load || load.status !== 'running') return;
    const t = setTimeout(() => {
      benchApi.loadJob(load.id).then(
        (j) => {
          setLoad(j);
          if (j.status === 'done') notifyCatalogChanged();
        },
        () => undefined,
      );
    }, 500);
    return () => clearTimeout(t);
  }, [load]);

  const chosen = presets.find((p) => p.id === preset);
  const scale = Number(sf);
  const isCustom = preset === CUSTOM;
  const queryIds = isCustom ? custom.map((q) => q.id) : (chosen?.queries.map((q) => q.id) ?? []);

  const choosePreset = (id: string) => {
    setPreset(id);
    setPhases(id === CUSTOM ? [newPhase('single', [])] : (presets.find((p) => p.id === id)?.phases ?? []));
  };

  const startLoad = async (layout: 'jdv' | 'single') => {
    setError(undefined);
    try {
      const targets = layout === 'jdv' ? Object.fromEntries(LAYOUT.map((k) => [k, map[k]])) : { direct: map.direct };
      setLoad(await benchApi.load(layout, scale, targets));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const run = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const { id } = await benchApi.create(
        isCustom
          ? {
              name: name.trim() || `Custom ${new Date().toLocaleString()}`,
              queries: custom,
              phases: forTargets(
                phases,
                custom.some((q) => q.direct),
              ),
            }
          : {
              name: name.trim() || `${chosen?.name ?? preset} ${new Date().toLocaleString()}`,
              preset,
              sources: Object.fromEntries(Object.entries(map).filter(([, v]) => v)),
              settings: { sf: scale },
              phases: forTargets(phases, !!map.direct),
            },
      );
      const { runId } = await benchApi.start(id);
      onStarted(runId);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const sourceSelect = (key: string, label: string, hint: string, optional = false) => (
    <label key={key}>
      <span>
        {label} <span className="j-muted j-small">{hint}</span>
      </span>
      <select value={map[key] ?? ''} onChange={(e) => setMap({ ...map, [key]: e.target.value })} aria-label={label}>
        {optional && <option value="">— none (federated only) —</option>}
        {sources.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name} ({s.engine})
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section className="j-card" aria-label="New benchmark run">
      <h2>New run</h2>
      <div className="j-form-grid">
        <label>
          <span>Preset</span>
          <select value={preset} onChange={(e) => choosePreset(e.target.value)} aria-label="Preset">
            {presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
            <option value={CUSTOM}>Custom queries</option>
          </select>
        </label>
        <label>
          <span>Name</span>
          <input value={name} placeholder={chosen?.name} onChange={(e) => setName(e.target.value)} aria-label="Name" />
        </label>
        {!isCustom && (
          <label>
            <span>
              Scale factor <span className="j-muted j-small">of the loaded data</span>
            </span>
            <input value={sf} onChange={(e) => setSf(e.target.value)} inputMode="decimal" aria-label="Scale factor" />
          </label>
        )}
      </div>
      {chosen && !isCustom && <p className="j-muted j-small">{chosen.description}</p>}
      {isCustom && (
        <>
          <h3 className="j-subhead">Queries</h3>
          <QueryEditor queries={custom} sources={sources} onChange={setCustom} />
        </>
      )}
      <div className="j-row j-subhead">
        <h3 className="j-flush">Phases</h3>
        <button type="button" onClick={() => setPhases(shortened(phases))}>
          Short run
        </button>
        <span className="j-muted j-small">no warm-up, 2 repetitions, 2 s per user level, at most 4 users</span>
      </div>
      <PhaseEditor phases={phases} queries={queryIds} trino={trino} onChange={setPhases} />
      {!isCustom && <h3 className="j-subhead">Sources</h3>}
      {!isCustom && (
        <div className="j-form-grid">
          {LAYOUT.map((k) => sourceSelect(k, k, LAYOUT_HINT[k]))}
          {sourceSelect('direct', 'Direct target', 'one database with all eight tables', true)}
        </div>
      )}
      {user.role === 'admin' && !isCustom && (
        <div className="j-row">
          <button type="button" onClick={() => void startLoad('jdv')} disabled={load?.status === 'running'}>
            Load dbA–dbD at this scale (replaces their TPC-H tables)
          </button>
          <button
            type="button"
            onClick={() => void startLoad('single')}
            disabled={!map.direct || load?.status === 'running'}
          >
            Load the direct target at this scale
          </button>
          {load && (
            <span className="j-load" data-testid="load-progress">
              <progress value={load.fraction} max={1} aria-label="Load progress" />{' '}
              {load.status === 'running'
                ? `${Math.round(load.fraction * 100)} % · ${load.rows.toLocaleString()} of ${load.totalRows.toLocaleString()} rows`
                : load.status === 'done'
                  ? `Loaded ${load.layout === 'jdv' ? 'dbA–dbD' : 'the direct target'} (${load.totalRows.toLocaleString()} rows)`
                  : `Load failed: ${load.message}`}
            </span>
          )}
        </div>
      )}
      {error && <p className="j-error">{error}</p>}
      <div className="j-row">
        <span className="j-spacer" />
        <button
          type="button"
          className="j-primary"
          onClick={() => void run()}
          disabled={busy || !presets.length || !phases.length}
        >
          Create and run
        </button>
      </div>
    </section>
  );
}
