import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ADMIN, createUser, freshPage, signInAs } from './accounts.js';
import { screenshotPath } from './studio.js';

// the PostgreSQL listener's port the config picked and handed to the studio as JUNCTION_PG_PORT
const PG_PORT = Number(process.env.JUNCTION_E2E_PG_PORT);

async function openPanel(page: Page): Promise<void> {
  await page.goto('/#/sources');
  await expect(page.getByTestId('source-dbA')).toBeVisible();
  await page.getByRole('button', { name: 'Connect with psql / JDBC' }).click();
  await expect(page.getByRole('region', { name: 'Connect with psql / JDBC' })).toBeVisible();
}

/** Screenshots land in JUNCTION_SHOTS_DIR when it is set (for review), else with the others. */
function shotPath(name: string): string {
  const dir = process.env.JUNCTION_SHOTS_DIR;
  if (!dir) return screenshotPath(name);
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

test.describe('connecting with psql / JDBC', () => {
  test('an analyst finds the psql command, JDBC URL and URI to reach Junction as themselves', async ({
    page,
    browser,
    baseURL,
  }) => {
    expect(PG_PORT).toBeGreaterThan(0);
    await signInAs(page, ADMIN);
    const analyst = await createUser(page, 'analyst', 'pgconn');
    const a = await freshPage(browser, baseURL);
    await signInAs(a, analyst);
    await openPanel(a);
    await expect(a.getByTestId('connect-psql')).toHaveText(
      `psql "host=127.0.0.1 port=${PG_PORT} dbname=junction user=${analyst.username} sslmode=disable"`,
    );
    await expect(a.getByTestId('connect-jdbc')).toHaveText(
      `jdbc:postgresql://127.0.0.1:${PG_PORT}/junction?sslmode=disable`,
    );
    await expect(a.getByTestId('connect-uri')).toHaveText(
      `postgresql://${analyst.username}@127.0.0.1:${PG_PORT}/junction?sslmode=disable`,
    );
    // sources are schemas: the example names the analyst's own first source and its first table
    await expect(a.getByTestId('connect-example')).toHaveText('SELECT * FROM "dbA"."lineitem" LIMIT 10;');
    // the password line leads to where tokens are made
    await a.getByTestId('connect-password').getByRole('link', { name: 'My account → API tokens' }).click();
    await expect(a).toHaveURL(/#\/settings\/tokens$/);
    await expect(a.getByRole('heading', { name: 'API tokens' })).toBeVisible();
    await a.context().close();
  });

  test('with the listener off the panel says how to turn it on', async ({ page }) => {
    await signInAs(page, ADMIN);
    // this studio runs the listener: the reply of one that does not stands in
    await page.route('**/api/v1/connection-info', (route) =>
      route.fulfill({
        json: {
          pgWire: { enabled: false, host: '127.0.0.1', port: null, tls: false, database: 'junction' },
          username: 'admin',
        },
      }),
    );
    await openPanel(page);
    await expect(page.getByTestId('connect-disabled')).toContainText('JUNCTION_PG_PORT');
    await expect(page.getByTestId('connect-psql')).toHaveCount(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: shotPath('connect-off-admin-1280.png') });
  });

  for (const width of [1280, 1600]) {
    test(`screenshots of the panel at ${width} px, admin and viewer`, async ({ page, browser, baseURL }) => {
      await page.setViewportSize({ width, height: 900 });
      await signInAs(page, ADMIN);
      await openPanel(page);
      await expect(page.getByTestId('connect-example')).toHaveText(/^SELECT \* FROM "dbA"\./);
      await page.screenshot({ path: shotPath(`connect-admin-${width}.png`) });

      const viewer = await createUser(page, 'viewer', 'pgshot');
      const v = await freshPage(browser, baseURL);
      await v.setViewportSize({ width, height: 900 });
      await signInAs(v, viewer);
      await openPanel(v);
      await expect(v.getByTestId('connect-psql')).toContainText(`user=${viewer.username} `);
      await expect(v.getByTestId('connect-no-query')).toContainText('Your role can connect but not run SQL there');
      await expect(v.getByTestId('connect-example')).toHaveText(/^SELECT \* FROM "dbA"\./);
      await v.screenshot({ path: shotPath(`connect-viewer-${width}.png`) });
      await v.context().close();
    });
  }
});
