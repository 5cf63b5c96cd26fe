import { Type, type Static } from '@sinclair/typebox';

/**
 * What a benchmark of the lab is: a named set of queries, each with a federated SQL (run through
 * Junction) and optionally a direct target (a registered source plus native SQL for it), parameter
 * generators and a weight; and the phases to run with their settings. Stored as JSON on the
 * Benchmark row; the route validates it with these schemas.
 */

const Name = Type.String({ minLength: 1, maxLength: 100 });

export const ParamGen = Type.Union([
  Type.Object(
    { kind: Type.Literal('uniform'), min: Type.Integer(), max: Type.Integer() },
    { additionalProperties: false, description: 'an integer uniform in [min, max], fresh per execution' },
  ),
  Type.Object(
    {
      kind: Type.Literal('list'),
      values: Type.Array(Type.Union([Type.String(), Type.Number()]), { minItems: 1, maxItems: 10_000 }),
    },
    { additionalProperties: false, description: 'one of the values, picked at random per execution' },
  ),
  Type.Object(
    { kind: Type.Literal('sequence'), start: Type.Integer(), step: Type.Optional(Type.Integer()) },
    { additionalProperties: false, description: 'start, start+step, … (one counter per query and run)' },
  ),
]);
export type ParamGen = Static<typeof ParamGen>;

export const BenchQuery = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' }),
    title: Type.Optional(Type.String({ maxLength: 300 })),
    federated: Type.String({ minLength: 1, maxLength: 200_000 }),
    direct: Type.Optional(
      Type.Object(
        { source: Name, sql: Type.String({ minLength: 1, maxLength: 200_000 }) },
        { additionalProperties: false },
      ),
    ),
    /** the direct SQL through Junction over the direct target alone (JDV use case 1) */
    pushdown: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000 })),
    params: Type.Optional(Type.Array(ParamGen, { maxItems: 20 })),
    weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type BenchQuery = Static<typeof BenchQuery>;

const Users = Type.Array(Type.Integer({ minimum: 1, maximum: 64 }), { minItems: 1, maxItems: 30 });
const QueryIds = Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 100 }));
/**
 * direct: native SQL on the direct target; pushdown: that SQL through Junction over the one
 * source; federated: the federated SQL through Junction; trino: the same federated SQL run with
 * engine trino (the configured Trino backend; refused where none is configured, bench-lab/trino.ts)
 */
export const Mode = Type.Union([
  Type.Literal('direct'),
  Type.Literal('pushdown'),
  Type.Literal('federated'),
  Type.Literal('trino'),
]);
export type Mode = Static<typeof Mode>;
const Modes = Type.Optional(Type.Array(Mode, { minItems: 1, maxItems: 4, uniqueItems: true }));

export const Phase = Type.Union([
  Type.Object(
    {
      type: Type.Literal('single'),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      queries: QueryIds,
      warmups: Type.Integer({ minimum: 0, maximum: 100 }),
      repetitions: Type.Integer({ minimum: 1, maximum: 10_000 }),
      modes: Modes,
    },
    { additionalProperties: false, description: 'each query alone, direct and federated (JDV use cases 1–2)' },
  ),
  Type.Object(
    {
      type: Type.Literal('concurrency'),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      query: Type.String({ maxLength: 40 }),
      users: Users,
      stepSeconds: Type.Number({ minimum: 0.1, maximum: 3600 }),
      thinkMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
      modes: Modes,
    },
    { additionalProperties: false, description: 'one query by 1…N users, a fixed time per level (use cases 3–4)' },
  ),
  Type.Object(
    {
      type: Type.Literal('mix'),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      queries: QueryIds,
      users: Type.Integer({ minimum: 1, maximum: 64 }),
      durationSeconds: Type.Number({ minimum: 0.1, maximum: 24 * 3600 }),
      intervalSeconds: Type.Number({ minimum: 0.1, maximum: 60 }),
      thinkMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
      mode: Type.Optional(Mode),
    },
    { additionalProperties: false, description: 'weighted transaction mix (TPoX driver): N users for a duration' },
  ),
  Type.Object(
    {
      type: Type.Literal('streams'),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      queries: QueryIds,
      users: Type.Integer({ minimum: 1, maximum: 64 }),
      mode: Type.Optional(Mode),
    },
    { additionalProperties: false, description: 'each user runs the set in its own order; geometric mean score' },
  ),
  Type.Object(
    {
      type: Type.Literal('coldwarm'),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      queries: QueryIds,
      warmPasses: Type.Integer({ minimum: 1, maximum: 100 }),
      cacheTtlSeconds: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 86400,
          description: "federated statements ask for Junction's result cache with this TTL (/*+ cache(ttl=…) */); absent: no result cache",
        }),
      ),
    },
    { additionalProperties: false, description: "one pass after Junction's caches are cleared, then warm passes" },
  ),
]);
export type Phase = Static<typeof Phase>;

export const Settings = Type.Object(
  {
    /** the scale factor the data was loaded at (the JDV constants depend on it) */
    sf: Type.Optional(Type.Number({ minimum: 0.001, maximum: 1000 })),
    /** dbA…dbD of the layout → registered source names */
    sources: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Name)),
    /** the registered source holding all eight tables (direct target) */
    direct: Type.Optional(Name),
    /** concurrent executions the run may have at once (its own admission budget) */
    maxConcurrent: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3600_000 })),
    sampleMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
    /**
     * how Junction is driven: the query service (default, the lab's own admission budget) or the
     * HTTP route POST /api/v1/query itself (auth, admission, serialisation; the interactive budget)
     */
    via: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('http')])),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof Settings>;

export interface Definition {
  readonly name: string;
  readonly preset?: string;
  readonly queries: BenchQuery[];
  readonly phases: Phase[];
  readonly settings: Settings;
}

export const CreateBenchmarkBody = Type.Object(
  {
    name: Name,
    preset: Type.Optional(Type.String({ maxLength: 40 })),
    queries: Type.Optional(Type.Array(BenchQuery, { maxItems: 100 })),
    phases: Type.Optional(Type.Array(Phase, { maxItems: 50 })),
    sources: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Name)),
    settings: Type.Optional(Settings),
    overrides: Type.Optional(
      Type.Object(
        {
          queries: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 100 })),
          warmups: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          repetitions: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
          stepSeconds: Type.Optional(Type.Number({ minimum: 0.1, maximum: 3600 })),
          durationSeconds: Type.Optional(Type.Number({ minimum: 0.1, maximum: 24 * 3600 })),
          maxUsers: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
          users: Type.Optional(Users),
          warmPasses: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateBenchmarkBody = Static<typeof CreateBenchmarkBody>;
