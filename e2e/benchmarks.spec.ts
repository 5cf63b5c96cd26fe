import { expect, test, type Page } from '@playwright/test';
import pg from 'pg';
import { csrfHeaders, screenshotPath, signIn } from './studio.js';

/**
 * The benchmark lab in the studio: a direct target is registered on the test PostgreSQL server
 * and loaded through the lab's form, a short JDV run is started and watched, a second run and a
 * streams run are added, and two runs are compared. Every chart looked at is screenshotted.
 */
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const dbName = `jt_e2e_lab_${process.pid}_${Math.floor(Math.random() * 1e6)}`;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

test.beforeAll(async () => admin(`CREATE DATABASE ${dbName}`));
test.afterAll(async () => admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));

async function shoot(page: Page, name: string, target?: ReturnType<Page['locator']>): Promise<void> {
  if (target) await target.screenshot({ path: screenshotPath(`bench-${name}.png`) });
  else await page.screenshot({ path: screenshotPath(`bench-${name}.png`), fullPage: true });
}

async function waitDone(page: Page, runId: string): Promise<void> {
  await expect
    .poll(async () => (await (await page.request.get(`/api/v1/benchmark-runs/${runId}`)).json()).status, {
      timeout: 240_000,
      intervals: [1000],
    })
    .toBe('done');
}

test('benchmark lab: load a direct target, run the JDV preset, watch it, chart it, compare two runs', async ({
  page,
}) => {
  test.setTimeout(600_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page);
  const u = new URL(PG_URL);
  const reg = await page.request.post('/api/v1/sources', {
    headers: await csrfHeaders(page),
    data: {
      name: 'tpch',
      engine: 'postgresql',
      host: u.hostname,
      port: Number(u.port || 5432),
      database: dbName,
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    },
  });
  expect(reg.status(), await reg.text()).toBe(201);

  await page.getByRole('link', { name: 'Benchmarks' }).click();
  const form = page.getByRole('region', { name: 'New benchmark run' });
  await expect(form.getByLabel('Preset')).toHaveValue('jdv');
  await form.getByLabel('Direct target').selectOption('tpch');
  await form.getByRole('button', { name: 'Load the direct target at this scale' }).click();
  await expect(page.getByTestId('load-progress')).toContainText('Loaded the direct target', { timeout: 180_000 });
  // the preset's phases with their default settings, made short for the test
  const usersG = form.getByRole('region', { name: 'Phase 2' }).getByLabel('Users per level');
  await expect(usersG).toHaveValue('1, 2, 5, 10, 20');
  await form.getByRole('button', { name: 'Short run' }).click();
  await expect(usersG).toHaveValue('1, 2');
  await expect(form.getByRole('region', { name: 'Phase 1' }).getByLabel('Repetitions')).toHaveValue('2');
  await shoot(page, '01-form-loaded');

  await form.getByRole('button', { name: 'Create and run' }).click();
  await expect(page).toHaveURL(/#\/benchmarks\/run\//);
  const runId = decodeURIComponent(page.url().split('/').pop()!);
  await expect(page.getByTestId('bench-run-status')).toHaveText('Running');
  await expect(page.getByTestId('run-progress')).toContainText('executions');
  await shoot(page, '02-running');
  // a reload keeps watching the same run
  await page.reload();
  await expect(page.getByTestId('run-progress')).toBeVisible();
  await waitDone(page, runId);
  await expect(page.getByTestId('bench-run-status')).toHaveText('Done', { timeout: 10_000 });
  await expect(page.getByText(/Answer checks: 8 of 8 queries give the same rows/)).toBeVisible();
  await expect(page.getByTestId('chart-per-query-0').locator('canvas')).toBeVisible();
  await shoot(page, '03-run-done');
  await shoot(page, '04-chart-per-query', page.getByTestId('phase-0'));
  await shoot(page, '05-chart-users-G', page.getByTestId('phase-1'));
  await shoot(page, '06-chart-users-H', page.getByTestId('phase-2'));
  await shoot(page, '07-chart-resources', page.getByTestId('chart-resources'));

  // PNG and SVG exports of a chart
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('chart-per-query-0').getByRole('button', { name: 'PNG' }).click(),
  ]);
  expect(png.suggestedFilename()).toBe('per-query-0.png');
  const [svg] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('chart-per-query-0').getByRole('button', { name: 'SVG' }).click(),
  ]);
  expect(svg.suggestedFilename()).toBe('per-query-0.svg');

  // a second, shorter run of the same preset, and a streams run, through the API the form uses
  const headers = await csrfHeaders(page);
  const sources = { dbA: 'dbA', dbB: 'dbB', dbC: 'dbC', dbD: 'dbD', direct: 'tpch' };
  const startRun = async (body: object): Promise<string> => {
    const b = await page.request.post('/api/v1/benchmarks', { headers, data: body });
    expect(b.status(), await b.text()).toBe(201);
    const r = await page.request.post(`/api/v1/benchmarks/${(await b.json()).id}/runs`, { headers, data: {} });
    expect(r.status()).toBe(201);
    return (await r.json()).runId;
  };
  const second = await startRun({
    name: 'JDV again',
    preset: 'jdv',
    sources,
    settings: { sf: 0.01 },
    overrides: { warmups: 0, repetitions: 2, users: [1, 2], stepSeconds: 1 },
  });
  await waitDone(page, second);
  const streams = await startRun({
    name: 'Streams and cold/warm',
    preset: 'streams',
    sources,
    settings: { sf: 0.01 },
    overrides: { maxUsers: 3, warmPasses: 2 },
  });
  await waitDone(page, streams);
  await page.goto(`/#/benchmarks/run/${streams}`);
  await expect(page.getByTestId('bench-run-status')).toHaveText('Done');
  await expect(page.getByTestId('chart-geomean').locator('canvas')).toBeVisible();
  await shoot(page, '08-chart-geomean', page.getByTestId('chart-geomean'));
  // each cold/warm phase has its chart in its own card: the streams preset's is its last phase,
  // the fourth when a Trino backend adds its own streams phase, the third otherwise
  const coldWarm = page.locator('[data-testid^="chart-cold-warm-"]');
  await expect(coldWarm.locator('canvas')).toBeVisible();
  const coldWarmPhase = (await coldWarm.getAttribute('data-testid'))!.replace('chart-cold-warm-', '');
  await shoot(page, '09-chart-cold-warm', page.getByTestId(`phase-${coldWarmPhase}`));

  await page.goto('/#/benchmarks');
  const runs = page.getByTestId('runs-table');
  await expect(runs.getByRole('row')).toHaveCount(4);
  await runs.getByLabel('Pick JDV again for comparison').check();
  await runs.getByRole('row').filter({ hasText: 'JBoss DV study' }).getByRole('checkbox').check();
  await shoot(page, '10-runs-list');
  await page.getByRole('button', { name: 'Compare the two ticked runs' }).click();
  await expect(page).toHaveURL(/#\/benchmarks\/compare\//);
  // a row per query and mode (direct, pushdown, federated, and trino when a Trino backend is
  // configured), and one per H concurrency level and mode but pushdown
  const modes = process.env.TRINO_URL ? 4 : 3;
  await expect(page.getByTestId('compare-table').getByRole('row')).toHaveCount(1 + 7 * modes + 2 * (modes - 1));
  await expect(page.getByTestId('chart-compare').locator('canvas')).toBeVisible();
  await shoot(page, '11-compare');

  // an exported run imports back as a new run with the same results
  const exported = await page.request.get(`/api/v1/benchmark-runs/${runId}/export`);
  expect(exported.status()).toBe(200);
  await page.goto('/#/benchmarks');
  await page.getByLabel('Import a run (JSON)').setInputFiles({
    name: 'run.json',
    mimeType: 'application/json',
    buffer: Buffer.from(await exported.text()),
  });
  await expect(page).toHaveURL(/#\/benchmarks\/run\//);
  expect(page.url()).not.toContain(runId);
  await expect(page.getByTestId('bench-run-status')).toHaveText('Done');
  await expect(page.getByText(/Answer checks: 8 of 8 queries give the same rows/)).toBeVisible();
});

test('benchmark lab: a benchmark of ones own queries, with a parameter generator and a direct target', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page);
  await page.getByRole('link', { name: 'Benchmarks' }).click();
  const form = page.getByRole('region', { name: 'New benchmark run' });
  await form.getByLabel('Preset').selectOption('custom');
  await form.getByLabel('Name').fill('Nation by key');
  const q = form.getByRole('region', { name: 'Query Q1' });
  await q.getByLabel('SQL through Junction').fill('SELECT n_name FROM dbD.nation WHERE n_nationkey = $1');
  await q.getByLabel('Direct source').selectOption('tpch');
  await q.getByLabel('Direct SQL').fill('SELECT n_name FROM nation WHERE n_nationkey = $1');
  await q.getByRole('button', { name: 'Add parameter $1' }).click();
  await q.getByLabel('$1 min').fill('0');
  await q.getByLabel('$1 max').fill('24');
  const phase = form.getByRole('region', { name: 'Phase 1' });
  await phase.getByLabel('Warm-ups').fill('0');
  await phase.getByLabel('Repetitions').fill('3');
  await shoot(page, '12-custom-form');
  await form.getByRole('button', { name: 'Create and run' }).click();
  await expect(page).toHaveURL(/#\/benchmarks\/run\//);
  const runId = decodeURIComponent(page.url().split('/').pop()!);
  await waitDone(page, runId);
  const run = await (await page.request.get(`/api/v1/benchmark-runs/${runId}`)).json();
  // the direct answer is checked against Junction's, and each mode ran 3 times
  expect({ equivalent: run.results.answers.Q1.equivalent, error: run.results.answers.Q1.error }).toEqual({
    equivalent: true,
    error: undefined,
  });
  expect(run.results.queries).toEqual([
    expect.objectContaining({
      query: 'Q1',
      direct: expect.objectContaining({ executions: 3, errors: 0, rows: 3 }),
      federated: expect.objectContaining({ executions: 3, errors: 0, rows: 3 }),
    }),
  ]);
  await expect(page.getByTestId('bench-run-status')).toHaveText('Done');
  await expect(page.getByText(/Answer checks: 1 of 1 queries give the same rows/)).toBeVisible();
  await shoot(page, '13-custom-run');
});
