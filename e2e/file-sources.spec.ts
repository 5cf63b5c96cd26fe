import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ADMIN, createUser, freshPage, signInAs, uniqueName } from './accounts.js';
import { csrfHeaders, setSql } from './studio.js';

// A file source over a CSV and a document source over an XML file, registered through the form
// while its live preview follows the typing, then joined in one query. The files go to the one
// folder the e2e server lets sources read (JUNCTION_FILE_ROOTS, set by playwright.config.ts).

const ROOT = process.env.JUNCTION_E2E_FILE_ROOT;
if (!ROOT) throw new Error('JUNCTION_E2E_FILE_ROOT is not set: run this spec with e2e/playwright.config.ts');
/** a folder of this run's own, so the spec can run again against the same studio */
const HERE = path.join(ROOT, uniqueName('fs'));

// a quoted field holding the delimiter, a quoted field holding quotes, and a NULL spelled out
const CUSTOMERS_CSV = [
  'id,name,since,note',
  'c1,"Acme, Inc.",2019,NULL',
  'c2,Globex,2021,"says ""hi"""',
  'c3,Initech,2020,no accounts',
  '',
].join('\n');

// the rows are accounts; their customer is the ancestor's id attribute (../@id)
const ACCOUNTS_XML = `<?xml version="1.0" encoding="UTF-8"?>
<Customers>
  <Customer id="c1">
    <Account no="A-1"><Balance>100.50</Balance></Account>
    <Account no="A-2"><Balance>-3.25</Balance></Account>
  </Customer>
  <Customer id="c2">
    <Account no="B-1"><Balance>7</Balance></Account>
  </Customer>
</Customers>
`;

/**
 * Review screenshots of what a user sees at the two sizes asked for, only when JUNCTION_SHOTS_DIR
 * names a folder. `bottom`: an element brought to the bottom of the window first (a form's end).
 */
async function shots(page: Page, name: string, bottom?: Locator, { dark = false } = {}): Promise<void> {
  const dir = process.env.JUNCTION_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  // the preview settled: not the previous rows under "Reading…"
  await expect(page.getByText('Reading…')).toHaveCount(0);
  const before = page.viewportSize();
  for (const [width, height] of [
    [1280, 900],
    [1600, 1000],
  ]) {
    await page.setViewportSize({ width, height });
    if (bottom) await bottom.evaluate((e) => e.scrollIntoView({ block: 'end' }));
    await page.screenshot({ path: path.join(dir, `${name}-${width}x${height}.png`) });
  }
  if (dark) {
    const theme = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
    // as the theme button does: the CSS variables, and the form controls' own colours
    const setTheme = (t: string) =>
      page.evaluate((v) => {
        document.documentElement.dataset.theme = v;
        document.documentElement.style.colorScheme = v;
      }, t);
    await setTheme('dark');
    await page.screenshot({ path: path.join(dir, `${name}-1600x1000-dark.png`) });
    await setTheme(theme);
  }
  if (before) await page.setViewportSize(before);
}

const preview = (form: Locator) => form.getByRole('region', { name: 'Preview' });

/** The preview table's header cells ("name type") and body rows, as shown. */
async function previewTable(form: Locator): Promise<{ head: string[]; rows: string[][]; nulls: boolean[][] }> {
  const table = preview(form).locator('table');
  const head = await table
    .locator('thead th')
    .evaluateAll((ths) =>
      ths.map((th) => `${th.childNodes[0]?.textContent ?? ''} ${th.querySelector('span')?.textContent ?? ''}`),
    );
  const cells = await table.locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) =>
      Array.from(tr.querySelectorAll('td')).map((td) => ({
        text: td.textContent ?? '',
        isNull: td.classList.contains('j-muted'),
      })),
    ),
  );
  return { head, rows: cells.map((r) => r.map((c) => c.text)), nulls: cells.map((r) => r.map((c) => c.isNull)) };
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(() => {
  mkdirSync(path.join(HERE, 'crm'), { recursive: true });
  mkdirSync(path.join(HERE, 'feeds'), { recursive: true });
  writeFileSync(path.join(HERE, 'crm', 'customers.csv'), CUSTOMERS_CSV);
  writeFileSync(path.join(HERE, 'feeds', 'accounts.xml'), ACCOUNTS_XML);
});

const filesName = uniqueName('crm_');
const docsName = uniqueName('feed_');

test('an admin registers a CSV file source, the preview following the typing', async ({ page }) => {
  await signInAs(page, ADMIN);
  await page.goto('/#/sources');
  await page.getByRole('button', { name: 'Register source' }).click();
  const form = page.getByRole('form', { name: 'Register a source' });
  await form.getByLabel('Engine').selectOption('duckdb');
  await expect(form.getByLabel('Engine').locator('option:checked')).toHaveText('Files (CSV, Parquet, JSON)');
  await form.locator('input[name="name"]').fill(filesName);
  await expect(preview(form)).toHaveText(/Fill in a path and the columns and first rows show here\./);

  await form.getByLabel('Root folder').fill(HERE);
  const table = form.locator('fieldset').first();
  await table.getByLabel('Path or glob').pressSequentially('crm/customers.csv');
  // the name is suggested from the file; the preview reads the table under that name
  await expect(table.getByLabel('Table name')).toHaveAttribute('placeholder', 'customers');
  await expect(preview(form).getByRole('heading')).toHaveText('Preview of customers');
  await expect(preview(form)).toContainText('first 3 rows');
  await expect
    .poll(async () => (await previewTable(form)).rows)
    .toEqual([
      ['c1', 'Acme, Inc.', '2019', 'NULL'],
      ['c2', 'Globex', '2021', 'says "hi"'],
      ['c3', 'Initech', '2020', 'no accounts'],
    ]);
  expect((await previewTable(form)).head).toEqual(['id text', 'name text', 'since int64', 'note text']);
  // without a NULL spelling, "NULL" is text
  expect((await previewTable(form)).nulls[0][3]).toBe(false);

  await table.getByLabel('NULL values').pressSequentially('NULL');
  await expect.poll(async () => (await previewTable(form)).nulls[0]).toEqual([false, false, false, true]);
  await table.getByLabel('Table name').fill('customers');
  await shots(page, 'files-form-preview', form, { dark: true });

  // a path outside the allowed folder: the preview says so, and why
  await form.getByLabel('Root folder').fill('/etc');
  await expect(preview(form).locator('.j-error')).toHaveText(
    `Source "${filesName}" may not read "/etc": it is not inside a folder allowed by JUNCTION_FILE_ROOTS (${ROOT}). (file_outside_roots)`,
  );
  await expect(preview(form).locator('table')).toHaveCount(0);
  await shots(page, 'files-preview-error-outside', form);
  await form.getByLabel('Root folder').fill(HERE);
  await expect(preview(form).getByRole('heading')).toHaveText('Preview of customers');

  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId(`source-${filesName}`);
  await expect(row.locator('td').nth(1)).toHaveText('Files (CSV, Parquet, JSON)');
  await expect(row.locator('td').nth(3)).toContainText('online');
});

test('an admin registers an XML document source with a row path, a decimal and an ancestor attribute', async ({
  page,
}) => {
  await signInAs(page, ADMIN);
  await page.goto('/#/sources');
  await page.getByRole('button', { name: 'Register source' }).click();
  const form = page.getByRole('form', { name: 'Register a source' });
  await form.getByLabel('Engine').selectOption('documents');
  await expect(form.getByLabel('Engine').locator('option:checked')).toHaveText('Documents (XML, JSON)');
  await form.locator('input[name="name"]').fill(docsName);
  await form.getByLabel('Root folder').fill(HERE);
  const table = form.locator('fieldset').first();
  await table.getByLabel('Table name').fill('accounts');
  await table.getByLabel('File path').fill('feeds/accounts.xml');
  await table.getByLabel('Row path').pressSequentially('/Customers/Customer/Account');
  await table.getByLabel('Column name').nth(0).fill('account_no');
  await table.getByLabel('Column path').nth(0).pressSequentially('@no');
  await expect(preview(form).getByRole('heading')).toHaveText('Preview of accounts');
  await expect.poll(async () => (await previewTable(form)).rows).toEqual([['A-1'], ['A-2'], ['B-1']]);

  await table.getByRole('button', { name: 'Add column' }).click();
  await table.getByLabel('Column name').nth(1).fill('balance');
  await table.getByLabel('Column type').nth(1).fill('decimal(15,2)');
  await table.getByLabel('Column path').nth(1).pressSequentially('Balance');
  await expect
    .poll(async () => (await previewTable(form)).rows)
    .toEqual([
      ['A-1', '100.50'],
      ['A-2', '-3.25'],
      ['B-1', '7.00'],
    ]);
  await table.getByRole('button', { name: 'Add column' }).click();
  await table.getByLabel('Column name').nth(2).fill('customer_id');
  await table.getByLabel('Column path').nth(2).pressSequentially('../@id');
  await expect
    .poll(async () => (await previewTable(form)).rows)
    .toEqual([
      ['A-1', '100.50', 'c1'],
      ['A-2', '-3.25', 'c1'],
      ['B-1', '7.00', 'c2'],
    ]);
  expect((await previewTable(form)).head).toEqual(['account_no text', 'balance decimal(15,2)', 'customer_id text']);
  await expect(preview(form)).toContainText('first 3 rows');
  await form.getByLabel('Secret HTTP headers (JSON, write-only)').fill('{"*": {"Authorization": "Bearer not-used"}}');
  await shots(page, 'documents-form-preview', form, { dark: true });

  // a row path that matches nothing
  await table.getByLabel('Row path').fill('/Customers/Client/Account');
  await expect(preview(form).getByTestId('preview-empty')).toHaveText(
    'The table has no rows: check that the row path matches elements in the file (and, for XML, that prefixes are declared under Namespaces).',
  );
  await expect(preview(form)).toContainText('no rows');
  expect((await previewTable(form)).rows).toEqual([]);
  await shots(page, 'documents-preview-no-rows', form);
  await table.getByLabel('Row path').fill('/Customers/Customer/Account');
  await expect(preview(form)).toContainText('first 3 rows');

  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form).toHaveCount(0);
  const row = page.getByTestId(`source-${docsName}`);
  await expect(row.locator('td').nth(1)).toHaveText('Documents (XML, JSON)');
  await expect(row.locator('td').nth(3)).toContainText('online');
  await expect(page.getByTestId(`source-${filesName}`)).toBeVisible();
  await shots(page, 'sources-list');

  // editing: the stored table comes back, the headers do not (write-only: blank keeps them)
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: `Edit source ${docsName}` });
  const headers = edit.getByLabel('Secret HTTP headers (JSON, write-only)');
  await expect(headers).toHaveValue('');
  await expect(headers).toHaveAttribute('placeholder', 'unchanged');
  await expect(edit.locator('#j-doc-headers-hint')).toHaveText(
    'Only for tables read from a URL: sent with their requests, per table name or "*" for all. Not shown again once saved; leave blank to keep the stored ones.',
  );
  await expect(edit.getByLabel('Table name')).toHaveValue('accounts');
  expect(
    await edit.getByLabel('Column path').evaluateAll((es) => es.map((e) => (e as HTMLInputElement).value)),
  ).toEqual(['@no', 'Balance', '../@id']);
  await expect(preview(edit)).toContainText('first 3 rows');
  await shots(page, 'documents-edit-form', edit);
  await edit.getByRole('button', { name: 'Cancel' }).click();
  await expect(edit).toHaveCount(0);
});

test('a query joins the two new tables', async ({ page }) => {
  await signInAs(page, ADMIN);
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  const tree = page.getByRole('list', { name: 'Catalog' });
  // a catalog of more than six sources starts closed: open the two new ones
  for (const name of [filesName, docsName]) {
    const summary = tree.getByTestId(`catalog-source-${name}`);
    if (!(await summary.locator('..').evaluate((d) => (d as HTMLDetailsElement).open))) await summary.click();
  }
  await expect(tree.getByTestId(`catalog-table-${filesName}.customers`)).toHaveText('customers');
  await expect(tree.getByTestId(`catalog-table-${docsName}.accounts`)).toHaveText('accounts');
  await tree.getByTestId(`catalog-table-${filesName}.customers`).click();
  await tree.getByTestId(`catalog-table-${docsName}.accounts`).click();
  const columns = (source: string, t: string) =>
    tree.getByTestId(`catalog-table-${source}.${t}`).locator('..').locator('.j-columns li');
  await expect(columns(filesName, 'customers')).toHaveText(['id text', 'name text', 'since int64', 'note text']);
  await expect(columns(docsName, 'accounts')).toHaveText([
    'account_no text',
    'balance decimal(15,2)',
    'customer_id text',
  ]);
  await expect(tree.getByTestId(`catalog-source-${filesName}`)).toHaveText(`${filesName} duckdb`);
  await expect(tree.getByTestId(`catalog-source-${docsName}`)).toHaveText(`${docsName} documents`);

  await setSql(
    page,
    [
      'SELECT c.name, c.note, a.account_no, a.balance',
      `FROM ${filesName}.customers c`,
      `JOIN ${docsName}.accounts a ON a.customer_id = c.id`,
      'ORDER BY a.account_no',
    ].join('\n'),
  );
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText(/^3 rows · /);
  const grid = page.getByTestId('results-grid');
  await expect(grid.locator('thead th')).toHaveText([/^#/, /^name/, /^note/, /^account_no/, /^balance/]);
  const cells = await grid.locator('tbody tr:not([aria-hidden])').evaluateAll((trs) =>
    trs.map((tr) =>
      Array.from(tr.querySelectorAll('td'))
        .slice(1)
        .map((td) => (td.classList.contains('j-null') ? `${td.textContent} (null)` : td.textContent)),
    ),
  );
  // the CSV's NULL arrives as a NULL, not as the text
  expect(cells).toEqual([
    ['Acme, Inc.', 'NULL (null)', 'A-1', '100.50'],
    ['Acme, Inc.', 'NULL (null)', 'A-2', '-3.25'],
    ['Globex', 'says "hi"', 'B-1', '7.00'],
  ]);
  await shots(page, 'catalog-tree');
});

test('an analyst is not offered the register form', async ({ page, browser, baseURL }) => {
  await signInAs(page, ADMIN);
  const analyst = await createUser(page, 'analyst', 'files');
  const a = await freshPage(browser, baseURL);
  await signInAs(a, analyst);
  await a.goto('/#/sources');
  await expect(a.getByRole('heading', { name: 'Sources' })).toHaveText('Sources');
  // the list is there (no Connection column for them), the register button is not
  await expect(a.getByRole('columnheader')).toHaveText(['Name', 'Engine', 'Status']);
  await expect(a.getByTestId('source-dbA')).toBeVisible();
  await expect(a.locator('main > .j-row').getByRole('button')).toHaveText(['Connect with psql / JDBC']);
  await expect(a.getByRole('button', { name: 'Register source' })).toHaveCount(0);
  await expect(a.getByRole('form', { name: 'Register a source' })).toHaveCount(0);
  // nor does the API preview files for them
  const res = await a.request.post('/api/v1/sources/preview', {
    data: {
      source: {
        engine: 'duckdb',
        options: { files: { root: HERE, tables: [{ name: 'customers', path: 'crm/customers.csv' }] } },
      },
    },
    headers: await csrfHeaders(a),
  });
  expect(res.status()).toBe(403);
  await a.context().close();
});
