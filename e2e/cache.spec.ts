import { expect, test, type Page } from '@playwright/test';
import { ADMIN, createUser, freshPage, signInAs } from './accounts.js';
import { csrfHeaders, screenshotPath } from './studio.js';

const REGIONS = `/*+ cache(ttl=600) */ SELECT r_name FROM dbD.region ORDER BY r_name`;
const NATIONS = `/*+ cache(ttl=600) */ SELECT count(*) AS n FROM dbD.nation`;

async function query(page: Page, sql: string): Promise<{ cache: string; cacheAgeSeconds?: number }> {
  const res = await page.request.post('/api/v1/query', { headers: await csrfHeaders(page), data: { sql } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { stats: { cache: string; cacheAgeSeconds?: number } }).stats;
}

test.describe('cache page', () => {
  test('shows hits, misses and entries of the result cache, and purges per source and all', async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.request.post('/api/v1/cache/purge', { headers: await csrfHeaders(page), data: {} });
    expect((await query(page, REGIONS)).cache).toBe('miss');
    expect((await query(page, REGIONS)).cache).toBe('hit');
    expect((await query(page, NATIONS)).cache).toBe('miss');

    await page.goto('/#/admin/cache');
    await expect(page.getByRole('heading', { name: 'Cache' })).toBeVisible();
    const results = page.getByTestId('cache-stats-results');
    await expect(results.locator('td').nth(0)).toHaveText(/^\d+$/);
    const entries = page.getByRole('table', { name: 'Cached results' });
    await expect(entries.locator('tbody tr')).toHaveCount(2);
    await expect(entries).toContainText('SELECT r_name FROM dbD.region');
    const regionRow = entries.locator('tbody tr', { hasText: 'dbD.region' });
    await expect(regionRow.locator('td').nth(3)).toHaveText('5'); // rows
    await expect(regionRow.locator('td').nth(5)).toHaveText('1'); // hits

    // purging what read dbD drops both entries
    await regionRow.getByRole('button', { name: 'dbD' }).click();
    await expect(page.getByRole('status')).toHaveText('Purged 2 entries (source dbD).');
    await expect(page.getByTestId('cache-results-empty')).toBeVisible();

    expect((await query(page, REGIONS)).cache).toBe('miss');
    // the page's own Refresh (each materialized view, from earlier specs too, has one of its own)
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect(entries.locator('tbody tr')).toHaveCount(1);
    await page.getByRole('button', { name: 'Purge all' }).click();
    await expect(page.getByRole('status')).toHaveText('Purged 1 entry (everything).');
    await expect(page.getByTestId('cache-results-empty')).toBeVisible();
  });

  test('shows a materialized view and refreshes it', async ({ page }) => {
    await signInAs(page, ADMIN);
    const headers = await csrfHeaders(page);
    expect((await page.request.post('/api/v1/schemas', { headers, data: { name: 'mvdemo' } })).status()).toBe(201);
    const view = { schema: 'mvdemo', name: 'regions', sql: 'SELECT r_regionkey, r_name FROM dbD.region' };
    expect((await page.request.post('/api/v1/views', { headers, data: view })).status()).toBe(201);
    const put = await page.request.put('/api/v1/materializations/mvdemo/regions', {
      headers,
      data: { intervalSeconds: null, maxStalenessSeconds: 3600 },
    });
    expect(put.status()).toBe(200);
    await page.goto('/#/admin/cache');
    const row = page.getByTestId('materialization-mvdemo.regions');
    await expect(row).toContainText('not yet refreshed');
    await row.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByRole('status')).toHaveText('Refreshed mvdemo.regions: 5 rows.');
    await expect(row.locator('td').nth(1)).toHaveText('ok');
    await expect(row.locator('td').nth(2)).toHaveText('5');
    const explain = await page.request.post('/api/v1/explain', {
      headers,
      data: { sql: 'SELECT count(*) FROM mvdemo.regions' },
    });
    expect(((await explain.json()) as { text: string }).text).toMatch(
      /^Materialized view mvdemo\.regions read from its stored rows, refreshed \d+ s ago/,
    );
    // the catalog says so beside the view
    await page.goto('/#/query');
    await page.reload();
    await page.getByLabel('Search catalog').fill('regions');
    await expect(page.getByTestId('catalog-materialization-mvdemo.regions')).toHaveText(/· materialized \d+ s ago/);
  });

  for (const width of [1280, 1920]) {
    test(`screenshots of the cache page at ${width} px, admin and viewer`, async ({ page, browser, baseURL }) => {
      await page.setViewportSize({ width, height: 900 });
      await signInAs(page, ADMIN);
      await query(page, REGIONS);
      await query(page, REGIONS);
      await query(page, NATIONS);
      await page.goto('/#/admin/cache');
      await expect(page.getByRole('table', { name: 'Cached results' })).toBeVisible();
      await page.screenshot({ path: screenshotPath(`admin-cache-${width}.png`) });

      const viewer = await createUser(page, 'viewer', 'cacheshot');
      const v = await freshPage(browser, baseURL);
      await v.setViewportSize({ width, height: 900 });
      await signInAs(v, viewer);
      await v.goto('/#/admin/cache');
      await expect(v.getByTestId('forbidden')).toBeVisible();
      await v.screenshot({ path: screenshotPath(`viewer-admin-cache-${width}.png`) });
      await v.context().close();
    });
  }
});
