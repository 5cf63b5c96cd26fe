import { expect, test, type Page, type Request } from '@playwright/test';
import { reviewShots } from './shots.js';
import { setSql, signIn } from './studio.js';

/**
 * The workspace's Run-on control (Junction · Trino · Auto). Without a Trino backend the studio
 * says nothing about Trino: no control, no "Ran on" line. With one (GET /api/v1/engines answered
 * here as a server with Trino would), the control sends `engine` with Run, Explain and Export,
 * is remembered per browser, and offers Trino only while Trino can run queries.
 */

const NO_TRINO = { default: 'local', trino: null };
const withTrino = (available: boolean) => ({
  default: 'local',
  trino: {
    available,
    message: available ? null : 'Trino at http://127.0.0.1:8088 did not answer: connection refused',
    autoRowsThreshold: 1_000_000,
    sources: [
      { source: 'dbA', local: false, catalog: 'junction_dba', reason: null },
      { source: 'dbC', local: true, catalog: null, reason: 'SQLite: Trino has no connector for it' },
    ],
  },
});

/** Answers GET /api/v1/engines with `reply` (the server's own answer is not asked). */
async function engines(page: Page, reply: unknown): Promise<void> {
  await page.route('**/api/v1/engines', (route) => route.fulfill({ json: reply }));
}

/** Signs in and waits until the workspace has asked which engines there are. */
async function open(page: Page): Promise<void> {
  const asked = page.waitForResponse((r) => r.url().endsWith('/api/v1/engines'));
  await signIn(page);
  await asked;
}

const bodyOf = (r: Request): Record<string, unknown> => JSON.parse(r.postData() ?? '{}') as Record<string, unknown>;

test('without Trino the workspace shows no Run-on control and no "Ran on" line', async ({ page }) => {
  // the server's own answer, unless this studio was started with a Trino (TRINO_URL): then the
  // same reply a server without one gives
  if (process.env.TRINO_URL) await engines(page, NO_TRINO);
  await open(page);
  const served = await page.request.get('/api/v1/engines');
  if (!process.env.TRINO_URL && served.status() === 200) expect((await served.json()).trino).toBeNull();
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect(page.getByRole('radiogroup', { name: 'Run on' })).toHaveCount(0);

  await setSql(page, 'SELECT c_custkey FROM dbB.customer WHERE c_custkey <= 3 ORDER BY 1');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/query') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Run' }).click();
  expect(bodyOf(await sent)).not.toHaveProperty('engine');
  await expect(page.getByTestId('run-status')).toContainText('3 rows');
  await expect(page.getByTestId('run-engine')).toHaveCount(0);
});

test('with Trino: the control sends engine with Run, Explain and Export, and is remembered', async ({ page }) => {
  await engines(page, withTrino(true));
  await open(page);
  const group = page.getByRole('radiogroup', { name: 'Run on' });
  await expect(group).toBeVisible();
  // nothing picked yet: the server's default shows, nothing is sent, a hint would decide
  await expect(group.getByRole('radio', { name: 'Junction' })).toBeChecked();
  await expect(group).toHaveAttribute('title', /Nothing is picked yet: a leading \/\*\+ engine\(…\) \*\/ hint in the SQL decides/);

  await setSql(page, 'SELECT c_custkey FROM dbB.customer WHERE c_custkey <= 2 ORDER BY 1');
  let sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/query') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Run' }).click();
  expect(bodyOf(await sent)).not.toHaveProperty('engine');
  // Trino is configured: the stats line says where the query ran, Junction here
  await expect(page.getByTestId('run-engine')).toHaveText(/^Ran on Junction/);

  // a pick is sent, wins over a hint (the tooltip says so), and outlives a reload
  await group.getByText('Auto').click();
  await expect(group.getByRole('radio', { name: 'Auto' })).toBeChecked();
  await expect(group).toHaveAttribute('title', /wins over a \/\*\+ engine\(…\) \*\/ hint in the SQL/);
  sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/query') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Run' }).click();
  expect(bodyOf(await sent)).toMatchObject({ engine: 'auto' });
  await expect(page.getByTestId('run-status')).toContainText('2 rows');

  const explained = page.waitForRequest((r) => r.url().endsWith('/api/v1/explain'));
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  expect(bodyOf(await explained)).toMatchObject({ engine: 'auto', analyze: false });
  await expect(page.getByTestId('plan')).toBeVisible();

  await page.getByRole('tab', { name: 'Results' }).click();
  const exported = page.waitForRequest((r) => r.url().endsWith('/api/v1/query/export'));
  await page.getByRole('button', { name: 'Export CSV' }).click();
  expect(bodyOf(await exported)).toMatchObject({ engine: 'auto', format: 'csv' });

  await page.reload();
  await expect(page.getByRole('radiogroup', { name: 'Run on' }).getByRole('radio', { name: 'Auto' })).toBeChecked();
  await reviewShots(page, 'run-on-control', page.locator('.j-toolbar'));
});

test('with Trino away its option is disabled and says why; a remembered pick of it is not sent', async ({ page }) => {
  await engines(page, withTrino(false));
  await page.addInitScript(() => localStorage.setItem('junction.runOn', 'trino'));
  await open(page);
  const group = page.getByRole('radiogroup', { name: 'Run on' });
  const trino = group.getByRole('radio', { name: 'Trino' });
  await expect(trino).toBeDisabled();
  await expect(group.locator('label', { hasText: 'Trino' })).toHaveAttribute(
    'title',
    'Trino at http://127.0.0.1:8088 did not answer: connection refused',
  );
  await expect(group.getByRole('radio', { name: 'Junction' })).toBeChecked();
  await setSql(page, 'SELECT 1 AS one');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/query') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Run' }).click();
  expect(bodyOf(await sent)).not.toHaveProperty('engine');
  await expect(page.getByTestId('run-status')).toContainText('1 row');
});
