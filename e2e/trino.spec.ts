import { expect, test, type Locator, type Page } from '@playwright/test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { signInAs, uniqueName, type Account } from './accounts.js';
import { csrfHeaders, screenshotPath, setSql, signIn } from './studio.js';

/**
 * Queries on Trino from the studio: two sources on two servers (PostgreSQL and MariaDB) are
 * registered, the server makes each readable in Trino, and a join across them runs there from
 * the workspace (Run on: Trino), is explained with Trino's own plan, and is measured by the
 * lab beside Junction. Needs a Trino the studio was started with: TRINO_URL (the Playwright
 * config passes it on as JUNCTION_TRINO_URL), e.g. `bash scripts/trino.sh start` and
 * TRINO_URL=http://127.0.0.1:8088.
 */
const TRINO_URL = process.env.TRINO_URL;
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const tag = `${process.pid}_${Math.floor(Math.random() * 1e6)}`;
const pgDb = `jt_e2e_trino_${tag}`;
const myDb = `jt_e2e_trino_${tag}`;
const pgSource = `tr_pg_${tag}`;
const mySource = `tr_my_${tag}`;

/** The join the workspace runs: orders in PostgreSQL, their customers in MariaDB. */
const JOIN = `SELECT c.name, count(*) AS orders, sum(o.total) AS total
FROM ${pgSource}.orders o JOIN ${mySource}.customers c ON c.id = o.customer_id
GROUP BY c.name ORDER BY c.name`;

if (!TRINO_URL)
  console.log('trino.spec.ts: skipped, TRINO_URL is unset (start one with `bash scripts/trino.sh start`, then TRINO_URL=http://127.0.0.1:8088)');
test.skip(!TRINO_URL, 'TRINO_URL is unset: no Trino for the studio to run queries on');

async function onPg(sql: string, db?: string): Promise<void> {
  const u = new URL(PG_URL);
  if (db) u.pathname = `/${db}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function onMy(sql: string): Promise<void> {
  const c = await mysql.createConnection({ uri: MYSQL_URL, multipleStatements: true });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

test.beforeAll(async () => {
  await onPg(`CREATE DATABASE ${pgDb}`);
  await onPg(
    `CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, total numeric(10,2) NOT NULL);
     INSERT INTO orders VALUES (1, 1, 10.50), (2, 1, 4.25), (3, 2, 100.00), (4, 3, 7.00), (5, 3, 0.25), (6, 3, 1.00)`,
    pgDb,
  );
  await onMy(
    `CREATE DATABASE ${myDb};
     CREATE TABLE ${myDb}.customers (id int PRIMARY KEY, name varchar(40) NOT NULL);
     INSERT INTO ${myDb}.customers VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Linus'), (4, 'Nobody')`,
  );
});

test.afterAll(async () => {
  await onPg(`DROP DATABASE IF EXISTS ${pgDb} WITH (FORCE)`);
  await onMy(`DROP DATABASE IF EXISTS ${myDb}`);
});

/**
 * Screenshots at the widths the studio is reviewed at: the window with `target` scrolled into
 * view (a step of the plan inside its scrolling panel), or the element alone with `element`.
 */
async function shots(page: Page, name: string, target: () => Locator, element = false): Promise<void> {
  for (const width of [1280, 1600]) {
    await page.setViewportSize({ width, height: 1000 });
    const t = target();
    await t.scrollIntoViewIfNeeded();
    if (element) await t.screenshot({ path: screenshotPath(`trino-${name}-${width}.png`) });
    else await page.screenshot({ path: screenshotPath(`trino-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 1000 });
}

async function register(page: Page): Promise<void> {
  const headers = await csrfHeaders(page);
  const p = new URL(PG_URL);
  const m = new URL(MYSQL_URL);
  for (const [name, data] of [
    [pgSource, { engine: 'postgresql', host: p.hostname, port: Number(p.port || 5432), database: pgDb, user: decodeURIComponent(p.username), password: decodeURIComponent(p.password) }],
    [mySource, { engine: 'mysql', host: m.hostname, port: Number(m.port || 3306), database: myDb, user: decodeURIComponent(m.username), password: decodeURIComponent(m.password) }],
  ] as const) {
    const r = await page.request.post('/api/v1/sources', { headers, data: { name, ...data } });
    expect(r.status(), await r.text()).toBe(201);
  }
  // the server makes each new source readable in Trino in the background
  await expect
    .poll(
      async () => {
        const e = (await (await page.request.get('/api/v1/engines')).json()) as {
          trino: { available: boolean; sources: { source: string; local: boolean }[] } | null;
        };
        const placed = e.trino?.sources.filter((s) => (s.source === pgSource || s.source === mySource) && !s.local);
        return `${e.trino?.available} ${placed?.length}`;
      },
      { timeout: 60_000 },
    )
    .toBe('true 2');
}

/** A user of `role` who may read both sources. */
async function userWithGrants(page: Page, role: 'analyst' | 'viewer'): Promise<Account> {
  const headers = await csrfHeaders(page);
  const a: Account = { username: uniqueName(`tr${role}`), password: `pw-${uniqueName('x')}-Secret`, role };
  const u = await page.request.post('/api/v1/users', { headers, data: a });
  expect(u.status()).toBe(201);
  const { id } = (await u.json()) as { id: string };
  for (const sourceName of [pgSource, mySource]) {
    const g = await page.request.post('/api/v1/grants', { headers, data: { userId: id, sourceName } });
    expect(g.status(), await g.text()).toBe(201);
  }
  return a;
}

test('a join across PostgreSQL and MariaDB runs on Trino from the workspace, explained with its plan', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await signIn(page);
  await register(page);
  await page.reload();
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();

  const group = page.getByRole('radiogroup', { name: 'Run on' });
  await group.getByText('Trino', { exact: true }).click();
  await expect(group.getByRole('radio', { name: 'Trino' })).toBeChecked();
  await setSql(page, JOIN);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toContainText('3 rows');
  await expect(page.getByTestId('run-engine')).toHaveText('Ran on Trino · asked for by the engine option');
  const cells = await page
    .getByTestId('results-grid')
    .locator('tbody tr:not([aria-hidden]) td:not(.j-rownum)')
    .allTextContents();
  expect(cells).toEqual(['Ada', '2', '14.75', 'Grace', '1', '100.00', 'Linus', '3', '8.25']);
  await shots(page, 'workspace', () => page.locator('.j-main'));

  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  await expect(page.getByTestId('plan-engine')).toHaveText('Runs on Trino · asked for by the engine option');
  // the text's "Engine: …" line is that sentence already: no note repeats it
  await expect(page.getByTestId('plan-notes')).toHaveCount(0);
  const remote = page.getByTestId('plan-remote-trino');
  await expect(remote).toHaveCount(1);
  await remote.locator('summary').click();
  await expect(remote.locator('pre')).toContainText('Fragment');
  await shots(page, 'plan', () => page.getByTestId('plan-engine'));
  await shots(page, 'plan-remote', () => page.getByTestId('plan-detail-remote'));

  // an analyst has the same control; a viewer runs saved queries by id, which take no engine
  for (const role of ['analyst', 'viewer'] as const) {
    const who = await userWithGrants(page, role);
    const ctx = await browser.newContext({ baseURL, viewport: { width: 1280, height: 1000 } });
    const p = await ctx.newPage();
    await signInAs(p, who);
    await expect(p.getByRole('button', { name: 'Run' })).toBeEnabled();
    if (role === 'analyst') {
      await p.getByRole('radiogroup', { name: 'Run on' }).getByText('Trino', { exact: true }).click();
      await setSql(p, JOIN);
      await p.getByRole('button', { name: 'Run' }).click();
      await expect(p.getByTestId('run-engine')).toHaveText('Ran on Trino · asked for by the engine option');
    } else {
      await expect(p.getByRole('radiogroup', { name: 'Run on' })).toHaveCount(0);
    }
    await shots(p, `workspace-${role}`, () => p.locator('.j-main'));
    await ctx.close();
  }
});

test('the lab runs the join through Trino beside Junction, checks its answers and charts both', async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await signIn(page);
  const headers = await csrfHeaders(page);
  const b = await page.request.post('/api/v1/benchmarks', {
    headers,
    data: {
      name: `Trino join ${tag}`,
      queries: [{ id: 'J', title: 'orders per customer, two servers', federated: JOIN }],
      phases: [{ type: 'single', label: 'The join alone', warmups: 1, repetitions: 3, modes: ['federated', 'trino'] }],
    },
  });
  expect(b.status(), await b.text()).toBe(201);
  const r = await page.request.post(`/api/v1/benchmarks/${(await b.json()).id}/runs`, { headers, data: {} });
  expect(r.status(), await r.text()).toBe(201);
  const { runId } = (await r.json()) as { runId: string };
  await expect
    .poll(async () => (await (await page.request.get(`/api/v1/benchmark-runs/${runId}`)).json()).status, {
      timeout: 180_000,
      intervals: [1000],
    })
    .toBe('done');
  const run = (await (await page.request.get(`/api/v1/benchmark-runs/${runId}`)).json()) as {
    results: { queries: { federated: { executions: number } | null; trino: { executions: number; rows: number } | null }[] };
  };
  expect(run.results.queries.map((q) => [q.federated?.executions, q.trino?.executions, q.trino?.rows])).toEqual([
    [3, 3, 9],
  ]);

  await page.goto(`/#/benchmarks/run/${encodeURIComponent(runId)}`);
  const phase = page.getByTestId('phase-0');
  await expect(phase.getByRole('columnheader', { name: /^Through Trino: p50/ })).toBeVisible();
  await expect(phase.getByRole('columnheader', { name: 'Trino ÷ federated' })).toBeVisible();
  await expect(phase.locator('canvas')).toBeVisible();
  await shots(page, 'lab-chart', () => page.getByTestId('phase-0'), true);

  // with Trino there, the presets run their queries through it too, and the form offers the mode
  await page.goto('/#/benchmarks');
  const form = page.getByRole('region', { name: 'New benchmark run' });
  await expect(form.getByLabel('Preset')).toHaveValue('jdv');
  for (const phase of ['Phase 1', 'Phase 2', 'Phase 3'])
    await expect(form.getByRole('region', { name: phase }).getByRole('checkbox', { name: 'Through Trino (federated SQL)' })).toBeChecked();
  await shots(page, 'lab-form', () => form.getByRole('region', { name: 'Phase 1' }), true);
});
