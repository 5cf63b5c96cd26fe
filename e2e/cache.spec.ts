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
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(entries.locator('tbody tr')).toHaveCount(1);
    await page.getByRole('button', { name: 'Purge all' }).click();
    await expect(page.getByRole('status')).toHaveText('Purged 1 entry (everything).');
    await expect(page.getByTestId('cache-results-empty')).toBeVisible();
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
