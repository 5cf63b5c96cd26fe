import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { reviewShots } from './shots.js';
import { csrfHeaders, editorText, loadExample, screenshotPath, setSql, signIn } from './studio.js';

test('a wrong password is refused and the admin signs in', async ({ page }) => {
  // signed out, the sign-in page asks nothing it knows would fail: the console stays clean
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  const meCalls: string[] = [];
  page.on('request', (r) => r.url().includes('/auth/me') && meCalls.push(r.url()));
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect(meCalls).toEqual([]);
  expect(consoleErrors).toEqual([]);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong username or password.');
  await signIn(page);
  await expect(page.getByRole('link', { name: 'Query' })).toHaveAttribute('aria-current', 'page');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  // the session is gone on the server too, not only in the page
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});

test('the catalog shows the demo sources dbA..dbD with their tables', async ({ page }) => {
  await signIn(page);
  const tree = page.getByRole('list', { name: 'Catalog' });
  for (const s of ['dbA', 'dbB', 'dbC', 'dbD']) await expect(page.getByTestId(`catalog-source-${s}`)).toBeVisible();
  const tables = async (source: string) =>
    (await tree.locator(`[data-testid^="catalog-table-${source}."]`).allTextContents()).map((t) => t.trim());
  // the loader's marker table (_junction_tpch_load) is bookkeeping: no catalog lists it
  expect(await tables('dbA')).toEqual(['lineitem', 'orders']);
  expect(await tables('dbB')).toEqual(['customer']);
  expect(await tables('dbC')).toEqual(['part', 'partsupp', 'supplier']);
  expect(await tables('dbD')).toEqual(['customer', 'nation', 'region']);

  // opening a table loads its columns with their types
  await page.getByTestId('catalog-table-dbB.customer').click();
  const columns = page.getByTestId('catalog-table-dbB.customer').locator('xpath=..').locator('.j-columns li');
  await expect(columns.first()).toHaveText(/^c_custkey\s+int32$/);
  await expect(columns).toHaveCount(8);

  // search narrows the tree to matching tables and columns
  await page.getByLabel('Search catalog').fill('nation');
  await expect(tree.locator('[data-testid^="catalog-source-"]')).toHaveText([/dbB/, /dbD/]);
  await expect(page.getByTestId('catalog-table-dbD.nation')).toBeVisible();
  await expect(page.getByTestId('catalog-table-dbB.customer').locator('xpath=..').locator('.j-columns li')).toHaveText([
    /^c_nationkey\s+int32$/,
  ]);
});

test('every saved example answers with rows, and an empty answer says so', async ({ page }) => {
  await signIn(page);
  // rows of each example on the demo data (SF 0.01), the same as one PostgreSQL holding all tables gives
  const expected: Record<string, number> = { A: 100, B: 15, C: 97, D: 1000, E: 47, F: 21, H: 43 };
  await page.getByRole('tab', { name: 'Saved' }).click();
  await expect(page.getByRole('list', { name: 'Saved queries' }).getByRole('button', { name: /^[A-H] · / })).toHaveCount(
    Object.keys(expected).length,
  );
  for (const [letter, rows] of Object.entries(expected)) {
    await loadExample(page, letter);
    await page.getByRole('button', { name: 'Run' }).click();
    await expect(page.getByTestId('run-status'), `example ${letter}`).toHaveText(new RegExp(`^${rows.toLocaleString('en-US')} rows? · `));
    await page.getByRole('tab', { name: 'Saved' }).click();
  }

  // H left its customer key; SQL without placeholders drops it
  await expect(page.getByTestId('params-form').getByLabel('Value of $1')).toHaveValue('1');
  await setSql(page, 'SELECT c_name FROM dbB.customer WHERE c_custkey < 0');
  await expect(page.getByTestId('params-form')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^0 rows · /);
  await expect(page.getByTestId('results-empty')).toHaveText('No rows: the query ran to the end and its answer is empty.');
  await expect(page.getByTestId('results-grid').locator('thead th')).toHaveText([/^#/, /^c_name/]);
  await page.getByRole('tab', { name: 'Saved' }).click();
  await page.screenshot({ path: screenshotPath('examples-and-empty-result.png') });
});

test('JDV query A runs federated and streams exactly 100 rows', async ({ page }) => {
  await signIn(page);
  await loadExample(page, 'A');
  await expect.poll(() => editorText(page)).toBe('SELECT * FROM dbB.customer WHERE c_custkey <= 100');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^100 rows · \d/);
  const grid = page.getByTestId('results-grid');
  await expect(grid.locator('table')).toHaveAttribute('aria-rowcount', '101');
  await expect(grid.locator('thead th')).toHaveText([
    /^#/,
    /^c_custkey/,
    /^c_name/,
    /^c_address/,
    /^c_nationkey/,
    /^c_phone/,
    /^c_acctbal/,
    /^c_mktsegment/,
    /^c_comment/,
  ]);
  const firstKeys = await grid.locator('tbody tr:not([aria-hidden]) td:nth-child(2)').allTextContents();
  expect(firstKeys.slice(0, 5)).toEqual(['1', '2', '3', '4', '5']);
  await expect(grid.locator('tbody tr:not([aria-hidden])').first().locator('td').nth(2)).toHaveText(
    'Customer#000000001',
  );

  // the workspace as a user sees it: catalog with a table open, the query, the streamed rows
  await page.getByRole('tab', { name: 'Catalog' }).click();
  await page.getByTestId('catalog-table-dbB.customer').click();
  await expect(page.getByTestId('catalog-table-dbB.customer').locator('xpath=..').locator('.j-columns li')).toHaveCount(8);
  await page.screenshot({ path: screenshotPath('query-workspace.png') });

  // the run shows up in the history
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByRole('list', { name: 'Query history' }).locator('li').first()).toContainText(
    'SELECT * FROM dbB.customer WHERE c_custkey <= 100',
  );
  await expect(page.getByRole('list', { name: 'Query history' }).locator('li').first()).toContainText('ok · 100 rows');
});

test('malformed SQL shows the error and underlines its position in the editor', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT c_name FORM dbB.customer');
  await page.keyboard.press('ControlOrMeta+Enter');
  const error = page.getByTestId('query-error');
  await expect(error).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveText(/^Failed after/);
  await expect(error.locator('strong')).toHaveText('syntax error at or near "dbB"');
  await expect(error.locator('.j-small')).toHaveText('syntax_error · line 1, column 20');
  const column = 20;
  const squiggle = page.getByTestId('sql-editor').locator('.squiggly-error');
  await expect(squiggle).toHaveCount(1);
  const box = (await squiggle.boundingBox())!;
  const xOfColumn = (col: number) =>
    page
      .getByTestId('sql-editor')
      .locator('.view-line')
      .first()
      .evaluate((line, col) => {
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let left = col - 1;
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const len = n.textContent!.length;
          if (left <= len) {
            const r = document.createRange();
            r.setStart(n, Math.min(left, len));
            r.setEnd(n, Math.min(left, len));
            return r.getBoundingClientRect().left;
          }
          left -= len;
        }
        return -1;
      }, col);
  // the underline covers exactly "dbB": columns 20 to 22
  expect(Math.abs(box.x - (await xOfColumn(column)))).toBeLessThan(2);
  expect(Math.abs(box.x + box.width - (await xOfColumn(column + 3)))).toBeLessThan(2);
  await page.screenshot({ path: screenshotPath('sql-error.png') });
});

test('Explain of JDV query E shows the SQL sent to dbA and to dbB', async ({ page }) => {
  await signIn(page);
  await loadExample(page, 'E');
  const sql = await editorText(page);
  expect(sql).toContain('FROM dbA.orders JOIN dbB.customer');
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  const plan = page.getByTestId('plan');
  await expect(plan).toBeVisible();

  // the viewer shows exactly the statements the server planned for each source
  const res = await page.request.post('/api/v1/explain', {
    data: { sql: sql.trim(), analyze: false },
    headers: await csrfHeaders(page),
  });
  expect(res.ok()).toBe(true);
  const body = (await res.json()) as { plan: PlanJson };
  const expected = collectSql(body.plan);
  expect(expected.get('dbA')?.length).toBeGreaterThan(0);
  expect(expected.get('dbB')?.length).toBeGreaterThan(0);
  await expect(plan.getByTestId('plan-sql-dbA')).toHaveText(expected.get('dbA')!);
  await expect(plan.getByTestId('plan-sql-dbB')).toHaveText(expected.get('dbB')!);
  expect(expected.get('dbA')!.join('\n')).toMatch(/orders/);
  expect(expected.get('dbB')!.join('\n')).toMatch(/customer/);
  await page.screenshot({ path: screenshotPath('explain-e.png') });

  // Explain Analyze runs the query and adds actual rows and times to every node
  await page.getByRole('button', { name: 'Explain Analyze' }).click();
  await expect(page.getByRole('region', { name: 'Explain analyze plan' })).toBeVisible();
  const analyzed = (await (
    await page.request.post('/api/v1/explain', {
      data: { sql: sql.trim(), analyze: true },
      headers: await csrfHeaders(page),
    })
  ).json()) as { plan: PlanJson };
  const dbB = findNode(analyzed.plan, 'dbB')!;
  expect(dbB.actual).toBeDefined();
  // an unknown estimate is left out rather than shown as "est ?"
  const est = dbB.estimatedRows === undefined ? '' : `est ${Math.round(dbB.estimatedRows).toLocaleString('en-US')} · `;
  const box = page.getByTestId('plan-graph').locator('[data-runs-in="dbB"]').first();
  await expect(box).toContainText(`${est}actual ${dbB.actual!.rows.toLocaleString('en-US')}`);
  await expect(page.getByTestId('plan-graph')).not.toContainText('est ?');
  await expect(box).toContainText(/ ms own · [\d.,]+ ms total$/);
});

test('completion offers the tables of a source and the columns of an aliased table', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT * FROM dbB');
  await page.keyboard.type('.');
  const suggest = page.getByTestId('sql-editor').locator('.suggest-widget .monaco-list-row');
  await expect(suggest.locator('.label-name')).toHaveText(['customer']);
  await page.keyboard.press('Escape');

  await setSql(page, 'SELECT  FROM dbA.orders o');
  await page.keyboard.press('Home');
  for (let i = 0; i < 'SELECT '.length; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.type('o.');
  await expect(suggest.first().locator('.label-name')).toHaveText('o_orderkey');
  await expect(suggest.first().locator('.details-label')).toHaveText('int32 · dbA.orders');
  await page.keyboard.press('Enter');
  await expect.poll(() => editorText(page)).toBe('SELECT o.o_orderkey FROM dbA.orders o');
});

test('Cancel stops a long-running query', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT count(*) FROM dbA.lineitem a CROSS JOIN dbA.lineitem b CROSS JOIN dbB.customer c');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^Running…/);
  await expect(page.getByRole('button', { name: 'Cancel' })).toBeEnabled();
  // cancel once the server runs it, so the cancel reaches a running query and not a request in flight
  await expect.poll(async () => (await (await page.request.get('/api/v1/queries')).json()).length).toBe(1);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^Cancelled after 0 rows/);
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  // nothing of ours is still running on the server, and the history says so
  await expect.poll(async () => (await (await page.request.get('/api/v1/queries')).json()).length).toBe(0);
  await page.getByRole('tab', { name: 'History' }).click();
  const last = page.getByRole('list', { name: 'Query history' }).locator('li').first();
  await expect(last).toContainText('SELECT count(*) FROM dbA.lineitem a CROSS JOIN');
  await expect(last.locator('.j-small')).toHaveText(/^cancelled · /);
});

test('registering a source with a wrong password shows the diagnosis', async ({ page }) => {
  const pg = new URL(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
  await signIn(page);
  await page.getByRole('link', { name: 'Sources' }).click();
  for (const s of ['dbA', 'dbB', 'dbC', 'dbD']) await expect(page.getByTestId(`source-${s}`)).toBeVisible();
  await page.getByRole('button', { name: 'Register source' }).click();
  const form = page.getByRole('form', { name: 'Register a source' });
  await form.getByLabel('Name').fill('badpw');
  await form.getByLabel('Engine').selectOption('postgresql');
  await form.getByLabel('Host').fill(pg.hostname);
  await form.getByLabel('Port').fill(pg.port || '5432');
  await form.getByLabel('Database').fill(pg.pathname.slice(1));
  await form.getByLabel('User').fill(decodeURIComponent(pg.username));
  await form.getByLabel('Password').fill('definitely-wrong-password');
  await form.getByRole('button', { name: 'Register' }).click();
  const alert = form.getByRole('alert');
  await expect(alert).toContainText('Could not connect to "badpw"');
  await expect(alert).toContainText('(auth_failed)');
  await expect(alert).not.toContainText('definitely-wrong-password');
  await expect(page.getByTestId('source-badpw')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('sources.png') });
});

test('testing a demo source reports a working connection', async ({ page }) => {
  await signIn(page);
  await page.getByRole('link', { name: 'Sources' }).click();
  const row = page.getByTestId('source-dbB');
  await row.getByRole('button', { name: 'Test' }).click();
  await expect(row.getByTestId('diagnosis')).toHaveText(/^Connected to .+ in \d+ ms\.$/);
  await row.getByRole('button', { name: 'Refresh catalog' }).click();
  await expect(row.getByTestId('diagnosis')).toHaveText('Catalog refreshed: 1 table.');
});

interface PlanJson {
  runsIn: string;
  sql?: string;
  estimatedRows?: number;
  actual?: { rows: number; timeMs: number };
  children: PlanJson[];
}

function findNode(n: PlanJson, runsIn: string): PlanJson | undefined {
  if (n.runsIn === runsIn) return n;
  for (const c of n.children ?? []) {
    const f = findNode(c, runsIn);
    if (f) return f;
  }
  return undefined;
}

function collectSql(n: PlanJson, out = new Map<string, string[]>()): Map<string, string[]> {
  if (n.sql) out.set(n.runsIn, [...(out.get(n.runsIn) ?? []), n.sql]);
  for (const c of n.children ?? []) collectSql(c, out);
  return out;
}

test('an admin registers a working source, sees its settings without the password, and deletes it', async ({
  page,
}) => {
  const pg = new URL(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
  const password = decodeURIComponent(pg.password);
  await signIn(page);
  await page.getByRole('link', { name: 'Sources' }).click();
  await page.getByRole('button', { name: 'Register source' }).click();
  const form = page.getByRole('form', { name: 'Register a source' });
  await form.getByLabel('Name').fill('e2epg');
  await form.getByLabel('Host').fill(pg.hostname);
  await form.getByLabel('Port').fill(pg.port || '5432');
  await form.getByLabel('Database').fill(pg.pathname.slice(1));
  await form.getByLabel('User').fill(decodeURIComponent(pg.username));
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form).toHaveCount(0);

  const row = page.getByTestId('source-e2epg');
  await expect(row.locator('td').nth(1)).toHaveText('PostgreSQL');
  await expect(row.locator('td').nth(2)).toHaveText(
    `${decodeURIComponent(pg.username)}@${pg.hostname}:${pg.port || '5432'}/${pg.pathname.slice(1)}`,
  );
  await expect(row.locator('td').nth(3)).toHaveText('online');
  // the password is write-only: the API says one is stored and never returns it
  const list = (await (await page.request.get('/api/v1/sources')).json()) as { id: string; name: string }[];
  const detail = (await (
    await page.request.get(`/api/v1/sources/${list.find((s) => s.name === 'e2epg')!.id}`)
  ).json()) as Record<string, unknown>;
  expect(detail.hasPassword).toBe(true);
  expect(Object.keys(detail)).not.toContain('password');

  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('source-dbA')).toBeVisible();
});

test('the editor query is saved under a name and loads back from the list', async ({ page }) => {
  await signIn(page);
  const sql = 'SELECT n_name FROM dbD.nation WHERE n_nationkey < 3 ORDER BY n_name';
  await setSql(page, sql);
  await page.getByRole('tab', { name: 'Saved' }).click();
  await page.getByLabel('Query name').fill('e2e nations');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('button', { name: 'e2e nations', exact: true })).toBeVisible();
  await setSql(page, 'SELECT 1');
  await page.getByRole('button', { name: 'e2e nations', exact: true }).click();
  await expect.poll(() => editorText(page)).toBe(sql);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^3 rows · /);
  await expect(page.getByTestId('results-grid').locator('tbody tr:not([aria-hidden]) td:nth-child(2)')).toHaveText([
    'ALGERIA',
    'ARGENTINA',
    'BRAZIL',
  ]);
});

test('an analyst queries the demo but gets no source administration', async ({ page, browser }) => {
  await signIn(page);
  const analyst = { username: 'e2e_analyst', password: 'e2e-Analyst-Passw0rd', role: 'analyst' };
  const created = await page.request.post('/api/v1/users', { data: analyst, headers: await csrfHeaders(page) });
  expect(created.status()).toBe(201);

  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await signIn(p, analyst);
  await loadExample(p, 'A');
  await p.getByRole('button', { name: 'Run' }).click();
  await expect(p.getByTestId('run-status')).toHaveText(/^100 rows · /);

  await p.getByRole('link', { name: 'Sources' }).click();
  for (const s of ['dbA', 'dbB', 'dbC', 'dbD']) await expect(p.getByTestId(`source-${s}`)).toBeVisible();
  await expect(p.getByRole('button', { name: 'Register source' })).toHaveCount(0);
  await expect(p.getByRole('button', { name: 'Test' })).toHaveCount(0);
  await expect(p.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await ctx.close();
});

test('a TLS-only server is registered from the form; a failed edit leaves no stale "Saved"', async ({ page }) => {
  const pg = new URL(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
  await signIn(page);
  await page.getByRole('link', { name: 'Sources' }).click();
  await page.getByRole('button', { name: 'Register source' }).click();
  const form = page.getByRole('form', { name: 'Register a source' });
  await form.getByLabel('Name').fill('e2etls');
  await form.getByLabel('Host').fill(pg.hostname);
  await form.getByLabel('Port').fill(pg.port || '5432');
  await form.getByLabel('Database').fill(pg.pathname.slice(1));
  await form.getByLabel('User').fill(decodeURIComponent(pg.username));
  await form.getByLabel('Password').fill(decodeURIComponent(pg.password));
  await expect(form.getByLabel('Verify the server certificate')).toBeHidden();
  await form.getByLabel('Encrypt the connection').check();
  // the test server's certificate is self-signed: verified, it is refused, and the form says why
  await expect(form.getByLabel('Verify the server certificate')).toBeChecked();
  await expect(form.getByLabel(/^CA certificate/)).toBeVisible();
  await reviewShots(page, 'new-source-tls');
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form.getByRole('alert')).toContainText(/certificate/i);
  await form.getByLabel('Verify the server certificate').uncheck();
  await form.getByLabel('Pool size').fill('3');
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId('source-e2etls');
  await expect(row.locator('td').nth(3)).toHaveText('online');
  const list = (await (await page.request.get('/api/v1/sources')).json()) as { id: string; name: string }[];
  const id = list.find((s) => s.name === 'e2etls')!.id;
  const detail = (await (await page.request.get(`/api/v1/sources/${id}`)).json()) as { options: unknown };
  expect(detail.options).toEqual({ tls: { enabled: true, rejectUnauthorized: false }, pool: { max: 3 } });

  // a successful edit says so; the next, failing one shows only its own error
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit source e2etls' });
  await expect(edit.getByLabel('Encrypt the connection')).toBeChecked();
  await edit.getByLabel('Pool size').fill('4');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(row.getByTestId('diagnosis')).toHaveText('Saved; the new settings were tested and are in use.');
  await row.getByRole('button', { name: 'Edit' }).click();
  await edit.getByLabel('Encrypt the connection').uncheck();
  await edit.getByLabel('Port').fill('1');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit.getByRole('alert')).toBeVisible();
  await expect(row.getByTestId('diagnosis')).toHaveCount(0);
  await reviewShots(page, 'source-edit-failed');
  await edit.getByRole('button', { name: 'Cancel' }).click();

  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
});

test('a source that goes away shows offline on Sources and in the Query catalog within seconds', async ({ page }) => {
  await signIn(page);
  // SQLite sources may only live in the studio's sqlite folder, where the demo's files are
  const list = (await (await page.request.get('/api/v1/sources')).json()) as { id: string; name: string }[];
  const dbC = list.find((x) => x.name === 'dbC')!;
  const demoFile = ((await (await page.request.get(`/api/v1/sources/${dbC.id}`)).json()) as { file: string }).file;
  const dir = mkdtempSync(path.join(path.dirname(demoFile), 'e2e-gone-'));
  const file = path.join(dir, 'gone.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE t (id integer primary key)');
  db.close();
  const created = await page.request.post('/api/v1/sources', {
    data: { name: 'e2egone', engine: 'sqlite', file },
    headers: await csrfHeaders(page),
  });
  expect(created.status()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;
  try {
    await page.getByRole('button', { name: 'Reload catalog' }).click();
    const badge = page.getByTestId('catalog-status-e2egone');
    await expect(page.getByTestId('catalog-source-e2egone')).toBeVisible();
    await expect(badge).toHaveCount(0);

    // the server checks every few seconds and the page reads the statuses as often: well within 5 s
    // on an idle machine; the margin is for a loaded one
    renameSync(file, `${file}.away`);
    await expect(badge).toHaveText('offline', { timeout: 8000 });
    await reviewShots(page, 'catalog-offline', page.locator('.j-sidebar'));
    await page.getByRole('link', { name: 'Sources' }).click();
    const row = page.getByTestId('source-e2egone');
    await expect(row.locator('.j-status')).toHaveText('offline');
    await expect(row).toContainText('does not exist');
    await reviewShots(page, 'sources-offline');

    renameSync(`${file}.away`, file);
    await expect(row.locator('.j-status')).toHaveText('online', { timeout: 8000 });
    await page.getByRole('link', { name: 'Query' }).click();
    await expect(badge).toHaveCount(0, { timeout: 8000 });
  } finally {
    await page.request.delete(`/api/v1/sources/${id}`, { headers: await csrfHeaders(page) });
    rmSync(dir, { recursive: true, force: true });
  }
});
