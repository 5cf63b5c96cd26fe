import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { createUser, signInAs } from './accounts.js';
import { reviewShots } from './shots.js';
import { csrfHeaders, editorText, loadExample, screenshotPath, setSql, signIn } from './studio.js';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const NATIONS = 'SELECT n_nationkey, n_name, n_comment FROM dbD.nation ORDER BY n_nationkey';
const grid = (page: Page) => page.getByTestId('results-grid');
const column = (page: Page, n: number) => grid(page).locator(`tbody tr:not([aria-hidden]) td:nth-child(${n})`);
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

async function run(page: Page, rows: number) {
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(new RegExp(`^${rows.toLocaleString('en-US')} rows? · `));
}

test('editor tabs survive a reload, and the next user to sign in sees only their own', async ({ page }) => {
  await signIn(page);
  await page.getByRole('button', { name: 'New editor tab' }).click();
  await setSql(page, 'SELECT 42 AS answer');
  await expect(page.getByRole('tab', { name: 'Query 2' })).toHaveAttribute('aria-selected', 'true');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect(page.getByRole('tablist', { name: 'Editor tabs' }).getByRole('tab')).toHaveText(['Query 1', 'Query 2']);
  await expect.poll(() => editorText(page)).toBe('SELECT 42 AS answer');
  await page.getByRole('tab', { name: 'Query 1' }).click();
  await expect.poll(() => editorText(page)).toBe('SELECT * FROM dbB.customer WHERE c_custkey <= 100');

  // the same browser, another user: none of the admin's tabs
  const analyst = await createUser(page, 'analyst', 'tabs');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, analyst);
  await expect(page.getByRole('tablist', { name: 'Editor tabs' }).getByRole('tab')).toHaveText(['Query 1']);
  expect(await editorText(page)).not.toContain('42');
});

test('Run takes the selection, else the statement at the cursor; errors point into the right statement', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT 1 AS first;\nSELECT 2 AS second;\nSELECT nope FROM dbD.nation');
  // the cursor is at the end: the third statement runs, and its error is underlined on line 3
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('query-error').locator('strong')).toHaveText(/column "nope" does not exist/);
  await expect(page.getByTestId('sql-editor').locator('.squiggly-error')).toHaveCount(1);
  const squiggleTop = (await page.getByTestId('sql-editor').locator('.squiggly-error').boundingBox())!.y;
  const line3Top = (await page.getByTestId('sql-editor').locator('.view-line').nth(2).boundingBox())!.y;
  expect(Math.abs(squiggleTop - line3Top)).toBeLessThan(20);

  // cursor on line 2
  await page.getByTestId('sql-editor').locator('.view-line').nth(1).click();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(grid(page).locator('thead th')).toHaveText([/^#/, /^second/]);
  await expect(column(page, 2)).toHaveText(['2']);

  // a selection runs alone, even across the statement boundary's text
  await page.getByTestId('sql-editor').locator('.view-line').nth(0).click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(grid(page).locator('thead th')).toHaveText([/^#/, /^first/]);
});

test('a parameters form fills $1; History re-runs a query with its values', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT n_name FROM dbD.nation WHERE n_nationkey = $1 OR n_name = $2');
  const form = page.getByTestId('params-form');
  await form.getByLabel('Value of $1').fill('3');
  await form.getByLabel('Value of $2').fill('PERU');
  await run(page, 2);
  await expect(column(page, 2)).toHaveText(['CANADA', 'PERU']);
  // NULL is its own choice: n_name = NULL matches nothing
  await form.getByRole('checkbox').nth(1).check();
  await expect(form.getByLabel('Value of $2')).toBeDisabled();
  await run(page, 1);

  await setSql(page, 'SELECT 1');
  await expect(page.getByTestId('params-form')).toHaveCount(0);
  await page.getByRole('tab', { name: 'History' }).click();
  const entry = page.getByRole('list', { name: 'Query history' }).locator('li').first();
  await expect(entry).toContainText('2 parameters');
  await entry.getByRole('button').click();
  await expect(page.getByTestId('params-form').getByLabel('Value of $1')).toHaveValue('3');
  await expect(page.getByTestId('params-form').getByRole('checkbox').nth(1)).toBeChecked();
  await run(page, 1);
  await expect(column(page, 2)).toHaveText(['CANADA']);
});

test('the grid sorts, filters, copies cells, rows and columns, shows a value in full, and resizes columns', async ({ page }) => {
  await signIn(page);
  await setSql(page, NATIONS);
  await run(page, 25);
  await page.getByRole('button', { name: 'Sort by n_name' }).click();
  await page.getByRole('button', { name: 'Sort by n_name' }).click();
  await expect(column(page, 3).first()).toHaveText('VIETNAM');
  await expect(page.getByTestId('grid-info')).toHaveText('Sorted by n_name descending (loaded rows)');
  // numbers sort by value, not as text (10 after 9)
  await page.getByRole('button', { name: 'Sort by n_nationkey' }).click();
  await expect(column(page, 2).first()).toHaveText('0');
  expect((await column(page, 2).allTextContents()).slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));

  await page.getByLabel('Filter rows').fill('united');
  await expect(column(page, 3)).toHaveText(['UNITED KINGDOM', 'UNITED STATES']);
  await expect(page.getByTestId('grid-info')).toHaveText('2 of 25 loaded rows match');

  // a rectangle of cells
  await column(page, 2).first().click();
  await column(page, 3).last().click({ modifiers: ['Shift'] });
  await grid(page).press('ControlOrMeta+c');
  // n_name is char(25): the values are blank-padded, and copied exactly so
  const uk = 'UNITED KINGDOM'.padEnd(25);
  const us = 'UNITED STATES'.padEnd(25);
  await expect.poll(() => clipboard(page)).toBe(`23\t${uk}\n24\t${us}`);
  await page.getByRole('button', { name: 'Copy with headers' }).click();
  await expect.poll(() => clipboard(page)).toBe(`n_nationkey\tn_name\n23\t${uk}\n24\t${us}`);
  // a whole row, from its number
  await column(page, 1).first().click();
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  const comment23 = await column(page, 4).first().getAttribute('title');
  await expect.poll(() => clipboard(page)).toBe(`23\t${uk}\t${comment23}`);
  // a whole column, from its header
  await page.getByRole('button', { name: /^Select column n_name/ }).click();
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect.poll(() => clipboard(page)).toBe(`${uk}\n${us}`);

  // a long value: cut with an ellipsis, whole in the tooltip and the viewer
  const cell = column(page, 4).first();
  expect(comment23!.length).toBeGreaterThan(40);
  await cell.dblclick();
  const viewer = page.getByTestId('cell-viewer');
  await expect(viewer.locator('pre')).toHaveText(comment23!);
  await expect(viewer).toContainText(`${comment23!.length} characters`);
  await page.screenshot({ path: screenshotPath('workspace-cell-viewer.png') });
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);

  // a column is made wider by dragging its edge
  await page.getByLabel('Filter rows').fill('');
  const th = grid(page).locator('thead th').nth(2);
  const before = (await th.boundingBox())!;
  const handle = th.locator('.j-resize');
  const hb = (await handle.boundingBox())!;
  await page.mouse.move(hb.x + hb.width / 2, hb.y + hb.height / 2);
  await page.mouse.down();
  await page.mouse.move(hb.x + 120, hb.y + hb.height / 2, { steps: 5 });
  await page.mouse.up();
  expect((await th.boundingBox())!.width).toBeGreaterThan(before.width + 80);
});

test('the header sits flush on top, the row numbers stay in view sideways, loading another query clears the grid', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await setSql(page, 'SELECT * FROM dbA.lineitem ORDER BY l_orderkey, l_linenumber LIMIT 500');
  await run(page, 500);
  const scroller = grid(page);
  await scroller.evaluate((el) => {
    el.scrollTop = 3000;
    el.scrollLeft = 600;
  });
  await page.waitForTimeout(200);
  const box = (await scroller.boundingBox())!;
  const head = (await scroller.locator('thead th').nth(1).boundingBox())!;
  // no gap between the top of the scroll area and the sticky header for rows to show through
  expect(Math.abs(head.y - box.y)).toBeLessThan(1.5);
  const rowNum = (await scroller.locator('tbody tr:not([aria-hidden]) td.j-rownum').first().boundingBox())!;
  expect(Math.abs(rowNum.x - box.x)).toBeLessThan(1.5);
  // the cell at the top-left corner is the row number's, not a data cell showing through
  const topLeft = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('td,th')?.className ?? '', [box.x + 5, box.y + 40]);
  expect(topLeft).toContain('j-rownum');
  await page.screenshot({ path: screenshotPath('workspace-grid-scrolled.png') });

  await loadExample(page, 'B');
  await expect(page.getByTestId('results-grid')).toHaveCount(0);
  await expect(page.getByTestId('run-status')).toHaveText('');
});

test('Export CSV and JSON download the whole result, byte for byte what the API streams', async ({ page }) => {
  await signIn(page);
  await setSql(page, NATIONS);
  await run(page, 25);
  await expect(page.getByTestId('run-sources')).toContainText('1 statement to dbD');
  await page.getByTestId('run-sources').locator('summary').click();
  await expect(page.getByTestId('run-sources').locator('li')).toContainText(/25 rows · [\d.]+ ms · from [\d.]+ ms to [\d.]+ ms/);
  await page.screenshot({ path: screenshotPath('workspace-run-sources.png') });
  for (const format of ['csv', 'json'] as const) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: `Export ${format.toUpperCase()}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`Query-1.${format}`);
    const file = await readFile((await download.path())!);
    const api = await page.request.post('/api/v1/query/export', { data: { sql: NATIONS, format }, headers: await csrfHeaders(page) });
    expect(api.status()).toBe(200);
    const expected = await api.body();
    expect(file.equals(expected)).toBe(true);
    expect(file.toString('utf8').split(format === 'csv' ? '\r\n' : '\n').length).toBe(format === 'csv' ? 27 : 28);
  }
  await expect(page.getByTestId('export-status')).toHaveText(/^Exported [\d,]+ bytes as JSON\.$/);
});

test('saved queries: save, refuse a duplicate name, rename, overwrite, delete', async ({ page }) => {
  await signIn(page);
  const name = `nations ${Date.now()}`;
  await setSql(page, 'SELECT n_name FROM dbD.nation WHERE n_nationkey < 2 ORDER BY 1');
  await page.getByRole('tab', { name: 'Saved' }).click();
  await page.getByLabel('Query name').fill(name);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('button', { name, exact: true })).toBeVisible();
  await page.getByLabel('Query name').fill(name);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.locator('.j-save-form [role="alert"]')).toHaveText(
    `You already have a saved query named "${name}". Pick another name, or overwrite that one.`,
  );

  page.on('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: `Rename ${name}` }).click();
  await page.getByLabel('New name').fill(`${name} renamed`);
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(page.getByRole('button', { name: `${name} renamed`, exact: true })).toBeVisible();
  await expect(page.getByRole('tab', { name: `${name} renamed` })).toHaveAttribute('aria-selected', 'true');

  await setSql(page, 'SELECT n_name FROM dbD.nation WHERE n_nationkey < 3 ORDER BY 1');
  await page.getByRole('button', { name: `Overwrite ${name} renamed with the editor's query` }).click();
  await expect
    .poll(async () => ((await (await page.request.get('/api/v1/saved-queries')).json()) as { name: string; sql: string }[]).find((q) => q.name === `${name} renamed`)?.sql)
    .toBe('SELECT n_name FROM dbD.nation WHERE n_nationkey < 3 ORDER BY 1');
  await page.screenshot({ path: screenshotPath('workspace-saved.png') });

  await page.getByRole('button', { name: `Delete ${name} renamed` }).click();
  await expect(page.getByRole('button', { name: `${name} renamed`, exact: true })).toHaveCount(0);
});

test('a viewer runs and exports a saved query, with no ad hoc SQL or Explain offered', async ({ page, browser }) => {
  await signIn(page);
  const viewer = await createUser(page, 'viewer', 'wsviewer');
  const ctx = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const p = await ctx.newPage();
  await signInAs(p, viewer);
  await expect(p.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect(p.getByRole('button', { name: 'Explain', exact: true })).toHaveCount(0);
  await expect(p.getByRole('note')).toHaveText('Viewers run saved queries: pick one under Saved, then Run.');
  await expect(p.getByLabel('Query name')).toHaveCount(0);
  await p.getByRole('button', { name: /^A · / }).click();
  await run(p, 100);
  await expect(p.getByRole('button', { name: /Rename A · / })).toHaveCount(0);
  const [download] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Export CSV' }).click()]);
  const file = await readFile((await download.path())!);
  const saved = ((await (await p.request.get('/api/v1/saved-queries')).json()) as { id: string; name: string }[]).find((q) => q.name.startsWith('A · '))!;
  const api = await p.request.post(`/api/v1/saved-queries/${saved.id}/export`, { data: { format: 'csv' }, headers: await csrfHeaders(p) });
  expect(file.equals(await api.body())).toBe(true);
  for (const width of [1280, 1920]) {
    await p.setViewportSize({ width, height: 900 });
    await p.screenshot({ path: screenshotPath(`workspace-viewer-${width}.png`) });
  }
  await ctx.close();
});

test('DELETE is refused with a sentence that reads right', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'DELETE FROM dbD.nation');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('query-error').locator('strong')).toHaveText(
    'DELETE cannot be run here: Junction answers queries only (SELECT, VALUES, WITH); change data in the source itself',
  );
});

test('the keyboard leaves the editor with Escape then Tab, and Ctrl+Enter runs after Explain', async ({ page }) => {
  await signIn(page);
  await setSql(page, 'SELECT n_name FROM dbD.nation WHERE n_nationkey = 1');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => !!document.activeElement?.closest('.monaco-editor'));
  expect(focused).toBe(false);
  // and Tab inside the editor still indents
  await page.getByTestId('sql-editor').locator('.view-lines').click();
  await page.keyboard.press('End');
  await page.keyboard.press('Tab');
  await expect.poll(() => editorText(page)).toMatch(/^SELECT n_name FROM dbD\.nation WHERE n_nationkey = 1 +$/);

  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  await expect(page.getByTestId('plan-graph')).toBeVisible();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByTestId('run-status')).toHaveText(/^1 row · /);
  await expect(column(page, 2)).toHaveText(['ARGENTINA']);
});

test('an ended session sends the studio back to sign-in and says why', async ({ page }) => {
  await signIn(page);
  // the server ends the session (as on expiry or a sign-out elsewhere)
  const out = await page.request.post('/api/v1/auth/logout', { data: {}, headers: await csrfHeaders(page) });
  expect(out.ok()).toBe(true);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('login-notice')).toHaveText('Your session has expired or was ended. Sign in again to continue.');
  await signIn(page);
  await expect(page.getByTestId('login-notice')).toHaveCount(0);
});

test('the plan is drawn as a tree with the SQL per source, a what-if, and after ANALYZE a timeline', async ({ page }) => {
  await signIn(page);
  await loadExample(page, 'C');
  const sql = (await editorText(page)).trim();
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  const graph = page.getByTestId('plan-graph');
  await expect(graph).toBeVisible();
  const explained = (await (await page.request.post('/api/v1/explain', { data: { sql, analyze: false }, headers: await csrfHeaders(page) })).json()) as {
    plan: PlanJson;
  };
  // one box per plan node, one edge per child
  const count = countNodes(explained.plan);
  await expect(graph.locator('.j-plan-box')).toHaveCount(count);
  await expect(graph.locator('.j-plan-edge')).toHaveCount(count - 1);
  // coloured by where each step runs
  await expect(graph.locator('[data-runs-in="dbA"]').first()).toHaveClass(/j-place-1/);
  await expect(graph.locator('[data-runs-in="dbB"]').first()).toHaveClass(/j-place-2/);
  await expect(graph.locator('[data-runs-in="junction"]').first()).toHaveClass(/j-place-0/);
  // ORDER BY revenue reads as revenue, not as the aggregate's name
  await page.getByTestId('plan-node-0').click();
  await expect(page.getByTestId('plan-detail')).toContainText('revenue DESC');
  await expect(page.getByTestId('plan-detail')).not.toContainText('sum DESC');

  // E joins through a dependent join: the what-if of its batches, before running
  await loadExample(page, 'E');
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  const whatIf = page.getByTestId('plan-whatif');
  await whatIf.getByRole('spinbutton').fill('2500');
  await expect(whatIf.getByTestId('whatif-result')).toContainText(/^→ 3 statements to db[AB], up to 1,000 keys each \(batches of 1,000\), ≈[\d,]+ characters per statement$/);
  await whatIf.getByRole('spinbutton').fill('10');
  await expect(whatIf.getByTestId('whatif-result')).toContainText(/^→ 1 statement to db[AB], up to 10 keys each/);
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: screenshotPath(`plan-${width}.png`), fullPage: true });
  }

  // a dependent join with dozens of keys into SQLite (PostgreSQL takes them as one array): its IN list is summarised in the plan, complete in the copy
  const sqlE = 'SELECT o_orderkey, c_name FROM dbA.orders JOIN dbD.customer ON o_custkey = c_custkey WHERE o_orderkey < 200';
  await setSql(page, sqlE);
  await page.getByRole('button', { name: 'Explain Analyze' }).click();
  const timeline = page.getByTestId('plan-timeline');
  await expect(timeline).toBeVisible();
  const analyzed = (await (await page.request.post('/api/v1/explain', { data: { sql: sqlE, analyze: true }, headers: await csrfHeaders(page) })).json()) as {
    plan: PlanJson & { timeline: { source: string; sql: string }[] };
  };
  await expect(timeline.locator('li')).toHaveCount(analyzed.plan.timeline.length);
  await expect(graph.locator('.j-hot')).toHaveCount(1);
  // the dependent statement's SQL, complete (not the summarised IN list), on the clipboard
  const driven = findFull(analyzed.plan);
  expect(driven).toBeDefined();
  const copies = page.getByRole('region', { name: 'SQL sent to each source' }).getByRole('button', { name: `Copy the SQL sent to ${driven!.runsIn}` });
  const copied: string[] = [];
  for (let i = 0; i < (await copies.count()); i++) {
    await copies.nth(i).click();
    copied.push(await page.evaluate(() => navigator.clipboard.readText()));
  }
  expect(copied).toContain(driven!.fullSql);
  expect(driven!.fullSql).toMatch(/ IN \(/);
  expect(driven!.sql).toContain('…');
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: screenshotPath(`plan-analyze-${width}.png`), fullPage: true });
  }
});

test('light and dark themes, screenshots of the workspace for admin and analyst', async ({ page }) => {
  await signIn(page);
  await setSql(page, NATIONS);
  await run(page, 25);
  for (const theme of ['light', 'dark'] as const) {
    if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme)
      await page.getByRole('button', { name: theme === 'dark' ? 'Use the dark theme' : 'Use the light theme' }).click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: screenshotPath(`workspace-admin-${theme}-${width}.png`) });
    }
  }
  // the choice survives a reload, and applies to every page
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const [route, name] of [
    ['#/sources', 'sources'],
    ['#/admin/users', 'admin-users'],
    ['#/settings/tokens', 'settings-tokens'],
  ] as const) {
    await page.goto(`/${route}`);
    await expect(page.getByTestId('current-user')).toBeVisible();
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath(`dark-${name}-1280.png`) });
  }
  await page.goto('/#/query');
  await page.getByRole('button', { name: 'Use the light theme' }).click();

  const analyst = await createUser(page, 'analyst', 'theme');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInAs(page, analyst);
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  await loadExample(page, 'E');
  await run(page, 47);
  await page.getByRole('button', { name: 'Use the dark theme' }).click();
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: screenshotPath(`workspace-analyst-dark-${width}.png`) });
  }
  await page.getByRole('button', { name: 'Use the light theme' }).click();
});

interface PlanJson {
  operator: string;
  runsIn: string;
  sql?: string;
  fullSql?: string;
  children: PlanJson[];
}

function countNodes(n: PlanJson): number {
  return 1 + n.children.reduce((t, c) => t + countNodes(c), 0);
}

function findFull(n: PlanJson): PlanJson | undefined {
  if (n.fullSql) return n;
  for (const c of n.children) {
    const f = findFull(c);
    if (f) return f;
  }
  return undefined;
}

test('an empty $1 is asked for instead of sent; Enter in the parameters form runs', async ({ page }) => {
  await signIn(page);
  await page.getByRole('button', { name: 'New editor tab' }).click();
  await setSql(page, 'SELECT n_name FROM dbD.nation WHERE n_nationkey = $1');
  const sent: string[] = [];
  page.on('request', (r) => r.url().endsWith('/api/v1/query') && sent.push(r.url()));
  await page.getByRole('button', { name: 'Run' }).click();
  const form = page.getByTestId('params-form');
  const value = form.getByLabel('Value of $1');
  await expect(value).toBeFocused();
  await expect(form.getByTestId('params-ask')).toHaveText('Enter a value for $1 (or tick NULL), then press Enter to run.');
  await expect(value).toHaveAttribute('aria-invalid', 'true');
  // Ctrl+Enter from the editor asks the same way
  await page.getByTestId('sql-editor').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(value).toBeFocused();
  expect(sent).toEqual([]);
  await expect(page.getByTestId('run-status')).toHaveText('');
  await reviewShots(page, 'params-ask');

  await value.fill('3');
  await expect(form.getByTestId('params-ask')).toHaveCount(0);
  await value.press('Enter');
  await expect(page.getByTestId('run-status')).toHaveText(/^1 row · /);
  await expect(column(page, 2)).toHaveText(['CANADA']);
  expect(sent).toHaveLength(1);

  // one row is "1 row" in History too
  await page.getByRole('tab', { name: 'History' }).click();
  const entry = page.getByRole('list', { name: 'Query history' }).locator('li').first();
  await expect(entry).toContainText('WHERE n_nationkey = $1');
  await expect(entry.locator('.j-small')).toContainText(' · 1 row · ');
});

test('the timeline draws each source in its own colour; no step says "est ?"', async ({ page }) => {
  await signIn(page);
  await setSql(
    page,
    'SELECT c.c_name, n.n_name FROM dbB.customer c JOIN dbD.nation n ON c.c_nationkey = n.n_nationkey WHERE c.c_custkey <= 20 ORDER BY c.c_name',
  );
  await page.getByRole('button', { name: 'Explain Analyze' }).click();
  const timeline = page.getByTestId('plan-timeline');
  await expect(timeline).toBeVisible();
  await expect(page.getByTestId('plan-graph')).not.toContainText('est ?');
  await expect(page.getByTestId('plan-detail')).not.toContainText('?');
  const bars = await timeline.locator('li').evaluateAll((lis) =>
    lis.map((li) => ({
      source: li.querySelector('.j-badge')?.textContent ?? '',
      colour: getComputedStyle(li.querySelector('.j-tl-bar')!).backgroundColor,
    })),
  );
  const bySource = new Map<string, Set<string>>();
  for (const b of bars) bySource.set(b.source, (bySource.get(b.source) ?? new Set()).add(b.colour));
  expect([...bySource.keys()].sort()).toEqual(['dbB', 'dbD']);
  // one colour per source, and not the same for both
  for (const colours of bySource.values()) expect(colours.size).toBe(1);
  expect(new Set(bars.map((b) => b.colour)).size).toBe(2);
  // the bar has the colour of its source's boxes in the tree
  const boxLine = await page
    .getByTestId('plan-graph')
    .locator('[data-runs-in="dbB"]')
    .first()
    .evaluate((g) => getComputedStyle(g).getPropertyValue('--pl-line').trim());
  expect(boxLine).not.toBe('');
  await reviewShots(page, 'plan-timeline', timeline);
});
