import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ADMIN, freshPage, signInAs, uniqueName, type Account } from './accounts.js';
import { csrfHeaders, screenshotPath, setSql } from './studio.js';

/**
 * The view designer against the real studio and its demo sources: an analyst builds a view
 * over dbA (orders) and dbB (customer) by mouse, saves it into a new virtual schema, finds and
 * queries it from the editor, reopens it on the canvas and reviews a change that would break
 * a view built on it. Names are unique per run, so the spec does not depend on other specs' data.
 */

const SQL = [
  'SELECT',
  '  o.o_orderkey,',
  '  o.o_totalprice,',
  '  c.c_name AS customer',
  'FROM dbA.orders AS o',
  '  JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey',
  'WHERE o.o_orderkey <= 7',
  'ORDER BY o_orderkey',
].join('\n');

async function analystWithGrants(admin: Page): Promise<Account> {
  const a: Account = { username: uniqueName('designer'), password: `pw-${uniqueName('x')}-Secret`, role: 'analyst' };
  const headers = await csrfHeaders(admin);
  const res = await admin.request.post('/api/v1/users', { data: a, headers });
  expect(res.status()).toBe(201);
  const userId = (await res.json()).id as string;
  for (const sourceName of ['dbA', 'dbB']) {
    const g = await admin.request.post('/api/v1/grants', { data: { userId, sourceName }, headers });
    expect(g.status()).toBe(201);
  }
  return a;
}

/** Screenshots of a step at the widths the studio is used at. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 1080 });
    await page.screenshot({ path: screenshotPath(`designer-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Screenshots looked at by hand: under /tmp, never in the repository. */
const SHOTS = process.env.JUNCTION_SHOTS ?? '/tmp/junction-shots';
async function look(page: Page, name: string, widths: readonly number[] = [1280, 1440]): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const before = page.viewportSize();
  for (const width of widths) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`) });
  }
  if (before) await page.setViewportSize(before);
}

/** Whether two elements' boxes on screen overlap. */
async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const x = (await a.boundingBox())!;
  const y = (await b.boundingBox())!;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

/** The preview grid's cells, row by row. */
async function gridRows(page: Page): Promise<string[][]> {
  return page
    .getByTestId('designer-preview')
    .locator('tbody tr:not([aria-hidden])')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll('td'))
          .slice(1)
          .map((td) => (td.textContent ?? '').trim()),
      ),
    );
}

test.describe('view designer', () => {
  test('an analyst builds a two-source view by mouse, saves, queries, reopens and reviews a change', async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(240_000);
    await signInAs(page, ADMIN);
    const analyst = await analystWithGrants(page);
    const schema = uniqueName('sales');
    const me = await freshPage(browser, baseURL);
    await signInAs(me, analyst);

    const started = Date.now();
    await me.getByRole('link', { name: 'Designer' }).click();
    await expect(me.getByTestId('designer-title')).toHaveText('New view');
    const canvas = me.getByTestId('designer-canvas');
    await me.getByTestId('palette-dbA.orders').dragTo(canvas, { targetPosition: { x: 80, y: 60 } });
    await expect(me.getByTestId('node-o')).toBeVisible();
    await me.getByTestId('palette-dbB.customer').dragTo(canvas, { targetPosition: { x: 480, y: 60 } });
    await expect(me.getByTestId('node-c')).toContainText('dbB.customer');
    await expect(me.getByTestId('node-c')).toContainText('postgresql');
    // the keys' names and types match: the join is offered, dashed on the canvas and in the list
    const accept = me.getByTestId('accept-join-o.o_custkey=c.c_custkey');
    await expect(accept).toBeVisible();
    await shoot(me, '1-two-sources-suggested-join');
    await accept.click();
    await expect(me.getByTestId('join-o.o_custkey=c.c_custkey')).toBeVisible();
    await expect(me.getByLabel('Join type of o.o_custkey = c.c_custkey')).toHaveValue('inner');

    await me.getByTestId('pick-o.o_orderkey').check();
    await me.getByTestId('pick-o.o_totalprice').check();
    await me.getByTestId('pick-c.c_name').check();
    await me.getByTestId('out-name-2').fill('customer');
    await me.getByTestId('out-name-2').press('Enter');
    await me.getByLabel('Filter column').selectOption('o.o_orderkey');
    await me.getByLabel('Filter operator').selectOption('<=');
    await me.getByLabel('Filter value').fill('7');
    await me.getByRole('button', { name: 'Add filter' }).click();
    await expect(me.getByTestId('filter-0')).toHaveText('o.o_orderkey <= 7×');
    await me.getByLabel('Order by').selectOption('o_orderkey');
    await expect.poll(() => sqlText(me)).toBe(SQL);
    await shoot(me, '2-columns-filter-sql');

    // the preview streams the view's first rows: the same as the API answers for its SQL
    const expected = await me.request.post('/api/v1/query', { data: { sql: SQL }, headers: await csrfHeaders(me) });
    const rows = ((await expected.json()).rows as unknown[][]).map((r) => r.map((v) => String(v)));
    expect(rows.length).toBeGreaterThan(0);
    await me.getByRole('tab', { name: 'Preview' }).click();
    await expect(me.getByTestId('preview-status')).toContainText(`${rows.length} rows in`);
    expect(await gridRows(me)).toEqual(rows);
    await shoot(me, '3-preview');

    // the plan: each source gets its part, Junction joins the two
    await me.getByRole('tab', { name: 'Plan' }).click();
    await expect(me.getByTestId('designer-plan-sql-dbA')).toContainText('orders');
    await expect(me.getByTestId('designer-plan-sql-dbB')).toContainText('customer');
    await expect(me.getByTestId('designer-plan')).toContainText('Join');
    await shoot(me, '4-plan');

    await me.getByRole('button', { name: 'Save as view…' }).click();
    const dialog = me.getByRole('dialog', { name: 'Save view' });
    await dialog.getByLabel('Virtual schema').selectOption({ label: 'New schema…' });
    await dialog.getByLabel('New schema name').fill(schema);
    await dialog.getByLabel('View name').fill('big_orders');
    await shoot(me, '5-save');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await expect(me.getByTestId('designer-notice')).toHaveText(`Saved as ${schema}.big_orders.`);
    await expect(me).toHaveURL(new RegExp(`#/designer/${schema}/big_orders$`));
    // the bar is two minutes by hand; the test's pace is a machine's, so it is reported, not asserted
    const builtMs = Date.now() - started;
    test.info().annotations.push({ type: 'built and saved in', description: `${builtMs} ms` });
    console.log(`designer: two-source view built, previewed, planned and saved in ${(builtMs / 1000).toFixed(1)} s`);

    // the view in the catalog (with its columns), found by search, and in the editor's queries
    await me.getByRole('link', { name: 'Query' }).click();
    await expect(me.getByTestId(`catalog-source-${schema}`)).toContainText('virtual schema');
    await me.getByLabel('Search catalog').fill('big_ord');
    const inTree = me.getByTestId(`catalog-table-${schema}.big_orders`);
    await expect(inTree.locator('..')).toContainText('customer varchar(25)');
    await setSql(me, `SELECT * FROM ${schema}.big_orders`);
    await me.getByRole('button', { name: 'Run' }).click();
    await expect(me.getByTestId('results-grid').locator('tbody tr:not([aria-hidden])')).toHaveCount(rows.length);
    await shoot(me, '6-catalog-and-query');

    // a view built on the view, which reads o_totalprice
    const top = await me.request.post('/api/v1/views', {
      data: { schema, name: 'top_orders', sql: `SELECT customer FROM ${schema}.big_orders WHERE o_totalprice > 1000` },
      headers: await csrfHeaders(me),
    });
    expect(top.status()).toBe(201);

    // reopen from the catalog: the canvas comes back as saved
    await inTree.getByRole('link', { name: 'canvas' }).click();
    await expect(me.getByTestId('designer-title')).toHaveText(`${schema}.big_orders`);
    await expect(me.getByTestId('node-o')).toBeVisible();
    await expect(me.getByTestId('pick-o.o_totalprice')).toBeChecked();
    await expect.poll(() => sqlText(me)).toBe(SQL);
    await me.getByRole('tab', { name: 'Lineage' }).click();
    await expect(me.getByTestId('designer-lineage')).toContainText(`${schema}.top_orders`);
    await expect(me.getByTestId('designer-lineage')).toContainText('dbA');
    await shoot(me, '7-reopened-lineage');

    // the change drops o_totalprice: the review shows both diffs and names the view it breaks
    await me.getByTestId('pick-o.o_totalprice').uncheck();
    await me.getByRole('button', { name: 'Save changes…' }).click();
    const review = me.getByRole('dialog', { name: 'Review changes' });
    await expect(review.getByTestId('diff-sql')).toContainText('−   o.o_totalprice,');
    await expect(review.getByTestId('diff-sources')).toContainText('−');
    await expect(review.getByTestId('review-dependants')).toHaveText(
      `${schema}.top_orders — breaks: reads o_totalprice, which the new version no longer has`,
    );
    await expect(review.getByRole('button', { name: 'Save changes' })).toBeDisabled();
    await shoot(me, '8-review');
    await review.getByText(`Save anyway and break ${schema}.top_orders`).click();
    await review.getByRole('button', { name: 'Save changes' }).click();
    await expect(me.getByTestId('designer-notice')).toHaveText(`Saved ${schema}.big_orders.`);
    await me.context().close();
  });

  test('edit as SQL round-trips to the canvas, or says why it stays SQL; undo and delete work', async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.goto('/#/designer');
    const canvas = page.getByTestId('designer-canvas');
    await page.getByTestId('palette-dbD.nation').dragTo(canvas, { targetPosition: { x: 100, y: 80 } });
    await expect(page.getByTestId('node-n')).toBeVisible();
    await page.getByTestId('pick-n.n_name').check();
    await expect.poll(() => sqlText(page)).toBe('SELECT\n  n.n_name\nFROM dbD.nation AS n');
    // computed columns are checked by the server before they join the view
    await page.getByLabel('Computed column expression').fill('upper(n.n_nam)');
    await page.getByLabel('Computed column name').fill('shout');
    await page.getByRole('button', { name: 'Add column' }).click();
    await expect(page.getByLabel('View definition').locator('.j-error')).toContainText('n_nam');
    await page.getByLabel('Computed column expression').fill('upper(n.n_name)');
    await page.getByRole('button', { name: 'Add column' }).click();
    await expect
      .poll(() => sqlText(page))
      .toBe('SELECT\n  n.n_name,\n  upper(n.n_name) AS shout\nFROM dbD.nation AS n');
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect(page.getByTestId('pick-n.n_name')).not.toBeChecked();
    await page.getByRole('button', { name: 'Redo' }).click();
    await expect(page.getByTestId('pick-n.n_name')).toBeChecked();

    await page.getByRole('button', { name: 'Edit as SQL' }).click();
    await replaceDesignerSql(
      page,
      'SELECT n.n_name, r.r_name FROM dbD.nation n JOIN dbD.region r ON n.n_regionkey = r.r_regionkey',
    );
    await page.getByRole('button', { name: 'Apply to canvas' }).click();
    await expect(page.getByTestId('node-r')).toBeVisible();
    await expect(page.getByTestId('join-n.n_regionkey=r.r_regionkey')).toBeVisible();

    await page.getByRole('button', { name: 'Edit as SQL' }).click();
    await replaceDesignerSql(
      page,
      'SELECT n_regionkey, count(*) FROM dbD.nation GROUP BY n_regionkey HAVING count(*) > 4',
    );
    await page.getByRole('button', { name: 'Apply to canvas' }).click();
    await expect(page.getByTestId('sql-not-on-canvas')).toHaveText(
      'Stays SQL: HAVING is not shown on the canvas. Preview, plan and save use this text.',
    );
    await page.getByRole('tab', { name: 'Preview' }).click();
    await expect(page.getByTestId('preview-status')).toContainText('rows in');
    await shoot(page, '9-sql-only');
    await page.getByRole('tab', { name: 'SQL' }).click();
    await page.getByRole('button', { name: 'Discard edits' }).click();

    // virtual schemas are renamed and, once empty, deleted from the palette
    const empty = uniqueName('scratch');
    const renamed = uniqueName('renamed');
    const made = await page.request.post('/api/v1/schemas', {
      data: { name: empty },
      headers: await csrfHeaders(page),
    });
    expect(made.status()).toBe(201);
    await page.reload();
    const entry = page.getByTestId(`palette-source-${empty}`);
    await entry.getByRole('button', { name: 'rename' }).click();
    await page.getByLabel(`New name for ${empty}`).fill(renamed);
    await page.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByTestId(`palette-source-${renamed}`)).toBeVisible();
    await page.getByRole('button', { name: `Delete ${renamed}` }).click();
    await expect(page.getByTestId(`palette-source-${renamed}`)).toHaveCount(0);
    // the reload kept the unsaved canvas: start afresh
    await expect(page.getByTestId('node-n')).toBeVisible();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'New' }).click();
    await expect(page.getByTestId('node-n')).toHaveCount(0);
    await page.getByTestId('palette-dbD.nation').dragTo(canvas, { targetPosition: { x: 100, y: 80 } });
    await page.getByTestId('palette-dbD.region').dragTo(canvas, { targetPosition: { x: 500, y: 80 } });
    await page.getByTestId('accept-join-n.n_regionkey=r.r_regionkey').click();

    // keyboard delete removes the selected table with its join
    await page.getByTestId('node-r').click({ position: { x: 20, y: 10 } });
    await page.keyboard.press('Delete');
    await expect(page.getByTestId('node-r')).toHaveCount(0);
    await expect(page.getByTestId('join-n.n_regionkey=r.r_regionkey')).toHaveCount(0);
    await expect.poll(() => sqlText(page)).toBe('SELECT\n  *\nFROM dbD.nation AS n');
  });

  test('unsaved work survives leaving and reloading, New asks first and can be undone; minimap and dark theme', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInAs(page, ADMIN);
    await page.goto('/#/designer');
    const canvas = page.getByTestId('designer-canvas');
    await page.getByTestId('palette-dbD.nation').dragTo(canvas, { targetPosition: { x: 100, y: 80 } });
    const nation = page.getByTestId('node-n');
    await expect(nation).toBeVisible();
    await page.getByTestId('pick-n.n_name').check();
    // fit to screen keeps the table clear of the minimap (its types and engine badge were under it)
    const minimap = page.locator('.react-flow__minimap');
    await expect.poll(() => overlaps(nation, minimap)).toBe(false);
    await page.getByRole('button', { name: 'Fit View' }).click();
    await expect.poll(() => overlaps(nation, minimap)).toBe(false);

    // to the Query page and back: the canvas is as it was left
    await page.getByRole('link', { name: 'Query' }).click();
    await page.getByRole('link', { name: 'Designer' }).click();
    await expect(nation).toBeVisible();
    await expect(page.getByTestId('pick-n.n_name')).toBeChecked();
    await page.reload();
    await expect(nation).toBeVisible();
    await expect(page.getByTestId('pick-n.n_name')).toBeChecked();
    await expect.poll(() => overlaps(nation, minimap)).toBe(false);

    // New asks before discarding; declined, nothing changes
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'New' }).click();
    await expect.poll(() => asked).toContain('Discard your unsaved changes');
    await expect(nation).toBeVisible();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'New' }).click();
    await expect(nation).toHaveCount(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect(nation).toBeVisible();
    await expect(page.getByTestId('pick-n.n_name')).toBeChecked();

    // dark theme: the node, its column names, the canvas, minimap and SQL editor all turn dark
    await page.getByRole('button', { name: 'Use the dark theme' }).click();
    const luminance = (l: Locator, prop: 'color' | 'background-color') =>
      l.evaluate((el, p) => {
        const m = /rgba?\((\d+), (\d+), (\d+)/.exec(getComputedStyle(el).getPropertyValue(p))!;
        const [r, g, b] = [m[1], m[2], m[3]].map(Number);
        return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
      }, prop);
    await expect.poll(() => luminance(nation.locator('.j-dnode-head'), 'background-color')).toBeLessThan(0.3);
    expect(await luminance(nation.locator('.j-dnode-colname').first(), 'color')).toBeGreaterThan(0.6);
    expect(await luminance(nation.locator('.j-dnode-head strong'), 'color')).toBeGreaterThan(0.6);
    expect(await luminance(nation, 'background-color')).toBeLessThan(0.3);
    expect(await luminance(canvas, 'background-color')).toBeLessThan(0.3);
    await expect(page.locator('.react-flow.dark')).toHaveCount(1);
    await expect(page.getByTestId('designer-sql').locator('.monaco-editor.vs-dark')).toBeVisible();
    await look(page, 'designer-dark');
    await page.getByRole('button', { name: 'Use the light theme' }).click();
    await look(page, 'designer-light');
  });

  test('a viewer runs a view they are granted from the catalog; an admin grants it by picking the view', async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    await signInAs(page, ADMIN);
    const headers = await csrfHeaders(page);
    const schema = uniqueName('granted');
    expect((await page.request.post('/api/v1/schemas', { headers, data: { name: schema } })).status()).toBe(201);
    const view = { schema, name: 'nations', sql: 'SELECT n_nationkey, n_name FROM dbD.nation' };
    expect((await page.request.post('/api/v1/views', { headers, data: view })).status()).toBe(201);
    expect(
      (
        await page.request.put(`/api/v1/materializations/${schema}/nations`, {
          headers,
          data: { intervalSeconds: null, maxStalenessSeconds: 3600 },
        })
      ).status(),
    ).toBe(200);
    expect((await page.request.post(`/api/v1/materializations/${schema}/nations/refresh`, { headers })).status()).toBe(
      200,
    );
    const v: Account = { username: uniqueName('viewer'), password: `pw-${uniqueName('x')}-Secret`, role: 'viewer' };
    expect((await page.request.post('/api/v1/users', { data: v, headers })).status()).toBe(201);

    // the grants form offers the existing schemas and the views in the one picked
    await page.goto('/#/admin/grants');
    await page.reload();
    const form = page.getByRole('form', { name: 'Add a grant' });
    await form.getByRole('combobox', { name: 'Who' }).selectOption({ label: `user ${v.username} (viewer)` });
    await form.getByRole('combobox', { name: 'On', exact: true }).selectOption('view');
    await expect(form.locator(`#grant-view-schemas option[value="${schema}"]`)).toHaveCount(1);
    await form.getByLabel('View schema').fill(schema);
    await expect(form.locator('#grant-view-names option[value="nations"]')).toHaveCount(1);
    await expect(form.getByTestId('grant-view-hint')).toHaveText(`Views in ${schema}: nations.`);
    await form.getByLabel('View name').fill('nations');
    await look(page, 'grants-view-picker', [1280]);
    await form.getByRole('button', { name: 'Grant read access' }).click();
    await expect(page.getByRole('table', { name: 'Grants' })).toContainText(`${schema}.nations`);

    const viewer = await freshPage(browser, baseURL);
    await signInAs(viewer, v);
    await viewer.getByRole('tab', { name: 'Catalog' }).click();
    await viewer.getByLabel('Search catalog').fill('nations');
    const row = viewer.getByTestId(`catalog-table-${schema}.nations`);
    await expect(row).toBeVisible();
    // no canvas (the designer refuses viewers) and no SQL they could not run
    await expect(row.getByRole('link', { name: 'canvas' })).toHaveCount(0);
    await expect(row.getByRole('button', { name: 'SQL' })).toHaveCount(0);
    await row.getByRole('button', { name: `Rows of ${schema}.nations` }).click();
    await expect(viewer.getByTestId('results-grid').locator('tbody tr:not([aria-hidden])')).toHaveCount(25);
    await expect(viewer.getByTestId('run-status')).not.toContainText('permission');
    await look(viewer, 'viewer-runs-granted-view');
    await viewer.getByRole('button', { name: 'Use the dark theme' }).click();
    await look(viewer, 'viewer-runs-granted-view-dark');
    // Run again from the toolbar: the tab still runs the view by its id
    await viewer.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(viewer.getByTestId('run-status')).toContainText('25 rows');
    await viewer.context().close();

    // the admin's catalog: the materialization note does not push Run, SQL and canvas out of the sidebar
    await page.goto('/#/query');
    await page.reload();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Search catalog').fill('nations');
    const adminRow = page.getByTestId(`catalog-table-${schema}.nations`);
    await expect(page.getByTestId(`catalog-materialization-${schema}.nations`)).toContainText('materialized');
    const sidebar = (await page.locator('.j-sidebar').boundingBox())!;
    for (const link of [
      adminRow.getByRole('button', { name: `Rows of ${schema}.nations` }),
      adminRow.getByRole('button', { name: 'SQL' }),
      adminRow.getByRole('link', { name: 'canvas' }),
    ]) {
      const b = (await link.boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(sidebar.x + sidebar.width);
    }
    await look(page, 'catalog-materialized', [1280]);
    // the drawn plan says the view is read from its stored rows, as the text EXPLAIN does
    await setSql(page, `SELECT * FROM ${schema}.nations`);
    await page.getByRole('button', { name: 'Explain', exact: true }).click();
    await expect(page.getByTestId('plan-notes')).toContainText(
      new RegExp(`Materialized view ${schema}\\.nations read from its stored rows, refreshed \\d+ s ago`),
    );
    await look(page, 'plan-materialized', [1280]);
    // a view built on the materialized one, on the designer's canvas: its plan says the same
    await page.goto('/#/designer');
    await page.getByTestId(`palette-${schema}.nations`).dragTo(page.getByTestId('designer-canvas'), {
      targetPosition: { x: 100, y: 80 },
    });
    await expect(page.getByTestId('node-n')).toBeVisible();
    await page.getByRole('tab', { name: 'Plan' }).click();
    await expect(page.getByTestId('designer-plan').getByTestId('plan-notes').first()).toContainText(
      'read from its stored rows',
    );
    await look(page, 'designer-plan-materialized', [1280]);
  });

  test('a design grant made in the grants form lets an analyst publish views into the schema', async ({
    page,
    browser,
    baseURL,
  }) => {
    await signInAs(page, ADMIN);
    const headers = await csrfHeaders(page);
    const schema = uniqueName('team');
    expect((await page.request.post('/api/v1/schemas', { headers, data: { name: schema } })).status()).toBe(201);
    const a = await analystWithGrants(page);
    const analyst = await freshPage(browser, baseURL);
    await signInAs(analyst, a);
    const post = async () =>
      analyst.request.post('/api/v1/views', {
        headers: await csrfHeaders(analyst),
        data: { schema, name: 'recent', sql: 'SELECT o_orderkey FROM dbA.orders WHERE o_orderkey <= 3' },
      });
    expect((await post()).status()).toBe(403);
    await page.goto('/#/admin/grants');
    await page.reload();
    const form = page.getByRole('form', { name: 'Add a grant' });
    await form.getByRole('combobox', { name: 'Who' }).selectOption({ label: `user ${a.username} (analyst)` });
    await form.getByRole('combobox', { name: 'On', exact: true }).selectOption('view');
    await form.getByRole('combobox', { name: 'Privilege' }).selectOption('design');
    await form.getByLabel('View schema').fill(schema);
    await expect(form.getByTestId('grant-view-hint')).toContainText('has no views yet');
    await form.getByRole('button', { name: 'Grant design access' }).click();
    await expect(page.getByRole('table', { name: 'Grants' })).toContainText(a.username);
    await expect.poll(async () => (await post()).status()).toBe(201);
    await analyst.context().close();
  });

  test('a viewer is told the designer is for analysts and admins', async ({ page, browser, baseURL }) => {
    await signInAs(page, ADMIN);
    const v: Account = { username: uniqueName('viewer'), password: `pw-${uniqueName('x')}-Secret`, role: 'viewer' };
    expect((await page.request.post('/api/v1/users', { data: v, headers: await csrfHeaders(page) })).status()).toBe(
      201,
    );
    const viewer = await freshPage(browser, baseURL);
    await signInAs(viewer, v);
    await expect(viewer.getByRole('link', { name: 'Designer' })).toHaveCount(0);
    await viewer.goto('/#/designer');
    // Monaco adds its own (empty) aria alerts once the Query page's editor has loaded
    const refusal = viewer.getByRole('alert').filter({ hasText: 'Designing views takes the analyst or admin role.' });
    await expect(refusal).toBeVisible();
    await shoot(viewer, '10-viewer');
    await viewer.context().close();
  });
});

/** The designer's SQL panel text (Monaco renders spaces as no-break spaces). */
async function sqlText(page: Page): Promise<string> {
  const lines = page.getByTestId('designer-sql').locator('.view-line');
  const texts = await lines.evaluateAll((els) =>
    els
      .map((e) => ({
        top: parseFloat((e as HTMLElement).style.top || '0'),
        text: (e.textContent ?? '').replace(/\u00a0/g, ' '),
      }))
      .sort((a, b) => a.top - b.top)
      .map((x) => x.text),
  );
  return texts.join('\n');
}

async function replaceDesignerSql(page: Page, sql: string): Promise<void> {
  await page.getByTestId('designer-sql').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
  await expect.poll(() => sqlText(page)).toBe(sql);
}
