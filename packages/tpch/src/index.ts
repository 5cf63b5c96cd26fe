export * from './schema.js';
export {
  generateTable,
  generateTableAsync,
  expectedRowCount,
  drivingCount,
  scaleOf,
  DEFAULT_SEED,
  GENERATOR_VERSION,
  MIN_SF,
  MAX_SF,
  type GenerateOptions,
  type Scale,
} from './generate.js';
export { renderTableDdl, nativeType, META_TABLE, type TableDdl, type LoadMarker } from './ddl.js';
export { LAYOUTS, TARGET_DATABASES, isLayoutName, type LayoutName, type LayoutTarget } from './layouts.js';
export { loadTpch, type LoadTarget, type LoadOptions, type LoadEvent, type LoadResult } from './load.js';
export { ProgressBars } from './progress.js';
export { sourceFromUrl, redactUrl } from './source-url.js';
export { Rng, seededRandom } from './random.js';
export { startDemo, DEMO_SF, type Demo, type DemoOptions } from './demo.js';
export {
  jdvWorkload,
  paramMax,
  SMALL_SCALE_BELOW,
  type Workload,
  type WorkloadQuery,
  type WorkloadParam,
  type WorkloadSource,
} from './workload.js';
export { tpchQueries, tpchFederatedSearchPath, tpchFederatedPlacement, type TpchQuery } from './tpch-queries.js';
