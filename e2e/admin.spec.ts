import { expect, test } from '@playwright/test';
import { ADMIN, createUser, freshPage, loginStatus, signInAs, uniqueName } from './accounts.js';
import { reviewShots } from './shots.js';
import { csrfHeaders, screenshotPath } from './studio.js';

test.describe('administration', () => {
  test('an admin creates a user, who signs in; once disabled they cannot', async ({ page, browser, baseURL }) => {
    await signInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Administration' }).click();
    await expect(page).toHaveURL(/#\/admin\/users$/);
    await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible();

    const username = uniqueName('ana');
    const password = 'first-Passw0rd!';
    await page.getByRole('button', { name: 'Create user' }).click();
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('User name').fill(username);
    await form.getByLabel('Initial password').fill('short');
    await form.getByLabel('Role').selectOption('analyst');
    await form.getByRole('button', { name: 'Create' }).click();
    // the browser's own check stops a short password before the API sees it
    await expect(page.getByTestId(`user-${username}`)).toHaveCount(0);
    await form.getByLabel('Initial password').fill(password);
    await page.screenshot({ path: screenshotPath('admin-create-user.png') });
    await form.getByRole('button', { name: 'Create' }).click();
    await expect(page.getByRole('status')).toHaveText(`Created ${username} (analyst).`);
    const row = page.getByTestId(`user-${username}`);
    await expect(row).toContainText('active');

    const other = await freshPage(browser, baseURL);
    await signInAs(other, { username, password, role: 'analyst' });

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect(row).toContainText('disabled');
    // their open session ended, and signing in again is refused
    await other.reload();
    await expect(other.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await other.getByLabel('Username').fill(username);
    await other.getByLabel('Password').fill(password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other.getByRole('alert')).toHaveText('Wrong username or password.');

    // enabling again and resetting the password: the old one no longer works
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect(row).toContainText('active');
    await row.getByRole('button', { name: 'Reset password' }).click();
    await row.getByLabel(`New password for ${username}`).fill('reset-Passw0rd!');
    await row.getByRole('button', { name: 'Set password', exact: true }).click();
    await expect(page.getByRole('status')).toContainText(`${username} has a new password`);
    expect(await loginStatus(baseURL, { username, password, role: 'analyst' })).toBe(401);
    expect(await loginStatus(baseURL, { username, password: 'reset-Passw0rd!', role: 'analyst' })).toBe(200);
    await other.context().close();
  });

  test('a token is shown once, works against the API, and is refused once revoked', async ({
    page,
    playwright,
    baseURL,
  }) => {
    const analyst = await (async () => {
      await signInAs(page, ADMIN);
      return createUser(page, 'analyst', 'tok');
    })();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInAs(page, analyst);
    await page.getByRole('link', { name: 'My account' }).click();
    await page.getByRole('navigation', { name: 'My account' }).getByRole('link', { name: 'API tokens' }).click();
    await expect(page).toHaveURL(/#\/settings\/tokens$/);
    await expect(page.getByTestId('tokens-empty')).toBeVisible();

    const form = page.getByRole('form', { name: 'Create a token' });
    // an analyst cannot hand out the admin scope
    await expect(form.getByRole('checkbox', { name: /^admin/ })).toHaveCount(0);
    await form.getByLabel('Name').fill('nightly-report');
    await form.getByRole('checkbox', { name: /^query/ }).check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const reveal = page.getByTestId('token-reveal');
    await expect(reveal).toContainText('shown only this once');
    await page.screenshot({ path: screenshotPath('analyst-token-created.png') });
    const token = await page.getByTestId('new-token').inputValue();
    expect(token).toMatch(/^jct_/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await reveal.getByRole('button', { name: 'Copy' }).click();
    await expect(reveal.getByRole('status')).toHaveText('Copied to the clipboard.');
    await reveal.getByRole('button', { name: 'I have copied it' }).click();
    await expect(page.getByTestId('token-reveal')).toHaveCount(0);
    // nowhere on the page any more: only its first characters in the list
    await expect(page.locator('body')).not.toContainText(token);
    const row = page.getByTestId('token-nightly-report');
    await expect(row).toContainText(token.slice(0, 10));
    await expect(row).toContainText('read, query');
    await expect(row).toContainText('never');

    const api = await playwright.request.newContext({ baseURL });
    const me = await api.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status()).toBe(200);
    expect((await me.json()).username).toBe(analyst.username);
    await page.reload();
    await expect(row).not.toContainText('never');

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect(row).toContainText('revoked');
    const refused = await api.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status()).toBe(401);
    await api.dispose();

    // the admin sees it among everyone's tokens, with its owner
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInAs(page, ADMIN);
    await page.goto('/#/admin/tokens');
    const all = page.getByRole('table', { name: 'API tokens of all users' });
    await expect(all.locator('tr', { hasText: analyst.username })).toContainText('revoked');
  });

  test('a user changes their own password and signs in with it', async ({ page, browser, baseURL }) => {
    await signInAs(page, ADMIN);
    const viewer = await createUser(page, 'viewer', 'pw');
    const other = await freshPage(browser, baseURL);
    await signInAs(other, viewer);
    await other.getByRole('link', { name: 'My account' }).click();
    await expect(other).toHaveURL(/#\/settings\/password$/);
    const form = other.getByRole('form', { name: 'Change my password' });
    await form.getByLabel('Current password').fill('not-it-at-all');
    await form.getByLabel('New password', { exact: true }).fill('brand-new-Passw0rd');
    await form.getByLabel('Repeat the new password').fill('brand-new-Passw0rd');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toHaveText('The current password is wrong.');
    await form.getByLabel('Current password').fill(viewer.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('status')).toHaveText('Your password was changed.');

    await other.getByRole('button', { name: 'Sign out' }).click();
    await signInAs(other, { ...viewer, password: 'brand-new-Passw0rd' });
    expect(await loginStatus(baseURL, viewer)).toBe(401);
    await other.context().close();

    // the audit log, filtered by action, shows the change
    await page.goto('/#/admin/audit');
    await page.getByLabel('Action').selectOption('user.password_change');
    await page.getByLabel('Who or what').fill(viewer.username);
    const log = page.getByRole('table', { name: 'Audit log' });
    await expect(log.locator('tbody tr')).toHaveCount(1);
    await expect(log.locator('tbody tr')).toContainText(viewer.username);
    await page.getByLabel('Action').selectOption('user.create');
    await expect(log.locator('tbody tr')).toHaveCount(1);
    await expect(log.locator('tbody tr')).toContainText('admin');
    await page.getByLabel('Who or what').fill('nobody-matches-this');
    await expect(page.getByTestId('audit-empty')).toBeVisible();
  });

  test('a viewer sees no admin navigation or connection details, and is refused at an admin URL', async ({
    page,
    browser,
    baseURL,
  }) => {
    await signInAs(page, ADMIN);
    const viewer = await createUser(page, 'viewer', 'view');
    const v = await freshPage(browser, baseURL);
    await signInAs(v, viewer);
    await expect(v.getByRole('navigation', { name: 'Main' }).getByRole('link')).toHaveText(['Query', 'Sources', 'Benchmarks']);
    await v.goto('/#/admin/users');
    await expect(v.getByTestId('forbidden')).toContainText('This page is for administrators');
    await expect(v.getByRole('table')).toHaveCount(0);
    await v.goto('/#/sources');
    await expect(v.getByRole('heading', { name: 'Sources' })).toBeVisible();
    await expect(v.getByRole('columnheader', { name: 'Connection' })).toHaveCount(0);
    await v.context().close();
  });

  test('an admin grants a role read access to views and revokes it', async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.goto('/#/admin/grants');
    const form = page.getByRole('form', { name: 'Add a grant' });
    await form.getByLabel('Who').selectOption('role:viewer');
    await form.getByLabel('On', { exact: true }).selectOption('view');
    // a grant names a schema that exists
    const schema = uniqueName('reports_');
    const made = await page.request.post('/api/v1/schemas', { data: { name: schema }, headers: await csrfHeaders(page) });
    expect(made.status()).toBe(201);
    await form.getByLabel('View schema').fill(schema);
    await form.getByRole('button', { name: 'Grant read access' }).click();
    const table = page.getByRole('table', { name: 'Grants' });
    const row = table.locator('tr', { hasText: `every view in ${schema}` });
    await expect(row).toContainText('every viewer');
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect(row).toHaveCount(0);
  });

  test('an unknown address says not found and links back', async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.goto('/#/no-such-page');
    await expect(page.getByTestId('not-found')).toContainText('Page not found');
    await expect(page.getByRole('button', { name: 'Run' })).toBeHidden();
    await page.goto('/admin/users');
    await expect(page.getByTestId('not-found')).toBeVisible();
    await page.getByRole('link', { name: 'Back to Query' }).click();
    await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  });

  for (const width of [1280, 1920]) {
    test(`screenshots of the admin and account pages at ${width} px`, async ({ page, browser, baseURL }) => {
      await page.setViewportSize({ width, height: 900 });
      await signInAs(page, ADMIN);
      const viewer = await createUser(page, 'viewer', 'shot');
      // a hash change loads nothing new, so each page says itself when its data is in
      const ready: Record<string, string> = {
        'admin/users': 'table[aria-label="Users"]',
        'admin/grants': '[data-testid="grants-empty"], table[aria-label="Grants"]',
        'admin/audit': 'table[aria-label="Audit log"]',
        'admin/tokens': '[data-testid="all-tokens-empty"], table[aria-label="API tokens of all users"]',
        'settings/tokens': '[data-testid="tokens-empty"], table[aria-label="My API tokens"]',
        'settings/password': 'form[aria-label="Change my password"]',
        sources: '[data-testid="source-dbD"] td:nth-child(3):not(:empty)',
        nope: '[data-testid="not-found"]',
      };
      for (const [route, selector] of Object.entries(ready)) {
        await page.goto(`/#/${route}`);
        await expect(page.locator(selector)).toBeVisible();
        await page.screenshot({ path: screenshotPath(`admin-${route.replace('/', '-')}-${width}.png`) });
      }
      const v = await freshPage(browser, baseURL);
      await v.setViewportSize({ width, height: 900 });
      await signInAs(v, viewer);
      for (const route of ['sources', 'admin/users', 'settings/tokens', 'settings/password']) {
        await v.goto(`/#/${route}`);
        await expect(v.locator(route === 'admin/users' ? '[data-testid="forbidden"]' : ready[route])).toBeVisible();
        await v.screenshot({ path: screenshotPath(`viewer-${route.replace('/', '-')}-${width}.png`) });
      }
      await v.context().close();
    });
  }
});

test.describe('sources administration', () => {
  test('a source is edited in place and shows its probe findings; the form keeps engines apart', async ({ page }) => {
    await signInAs(page, ADMIN);
    const list = (await (await page.request.get('/api/v1/sources')).json()) as { id: string; name: string }[];
    const fileOf = async (name: string) => {
      const s = list.find((x) => x.name === name)!;
      return ((await (await page.request.get(`/api/v1/sources/${s.id}`)).json()) as { file: string }).file;
    };
    const [fileC, fileD] = [await fileOf('dbC'), await fileOf('dbD')];
    await page.goto('/#/sources');

    await page.getByRole('button', { name: 'Register source' }).click();
    const form = page.getByRole('form', { name: 'Register a source' });
    await form.getByLabel('Engine').selectOption('sqlite');
    await form.getByLabel('File path').fill(fileC);
    // switching engines must not carry a file path into the database name
    await form.getByLabel('Engine').selectOption('postgresql');
    await expect(form.getByLabel('Database')).toHaveValue('');
    await form.getByLabel('Port').fill('99999');
    expect(await form.getByLabel('Port').evaluate((e: HTMLInputElement) => e.validity.rangeOverflow)).toBe(true);
    await form.getByLabel('Engine').selectOption('sqlite');
    const name = uniqueName('edited_');
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('File path').fill(fileC);
    await form.getByRole('button', { name: 'Register' }).click();

    const row = page.getByTestId(`source-${name}`);
    await expect(row).toContainText(fileC);
    await row.getByText('Probe findings').click();
    await expect(row.locator('dl')).toContainText('Collation');
    await expect(row.locator('dl')).toContainText('Parameters per query');

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: `Edit source ${name}` });
    await expect(edit.getByLabel('File path')).toHaveValue(fileC);
    await page.screenshot({ path: screenshotPath('admin-source-edit.png') });
    await edit.getByLabel('File path').fill(fileD);
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit).toHaveCount(0);
    await expect(row).toContainText(fileD);
    await expect(row.getByTestId('diagnosis')).toContainText('Saved');

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect(row).toHaveCount(0);
  });

  test('an admin sets concurrency limits for the server and for a role, and removes them', async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Limits' }).click();
    await expect(page).toHaveURL(/#\/admin\/limits$/);
    await expect(page.getByRole('heading', { name: 'Concurrency limits' })).toBeVisible();
    await expect(page.getByTestId('limits-load')).toContainText('running');

    const server = page.getByRole('form', { name: 'Server-wide limit' });
    await server.getByLabel('Running at once').fill('7');
    await server.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status')).toHaveText('Saved the server-wide limit.');
    await expect(page.getByTestId('limits-load')).toContainText('at most 7 at once');
    const stored = (await (await page.request.get('/api/v1/limits')).json()) as {
      server: { maxConcurrent: number };
      overrides: { scope: string; subject: string; maxConcurrent: number | null; maxQueued: number | null }[];
    };
    expect(stored.server.maxConcurrent).toBe(7);
    expect(stored.overrides.find((o) => o.scope === 'server')).toMatchObject({ maxConcurrent: 7, maxQueued: null });

    const setting = page.getByRole('form', { name: 'Set a limit' });
    await setting.getByLabel('Applies to').selectOption('role');
    await setting.getByLabel('Role', { exact: true }).selectOption('viewer');
    await setting.getByLabel('Running at once').fill('0');
    await setting.getByRole('button', { name: 'Save limit' }).click();
    // the browser's own range check stops 0 before the page or the API see it
    expect(await setting.getByLabel('Running at once').evaluate((e: HTMLInputElement) => e.validity.rangeUnderflow)).toBe(true);
    await setting.getByLabel('Running at once').fill('2');
    await setting.getByLabel('Waiting').fill('0');
    await setting.getByRole('button', { name: 'Save limit' }).click();
    await expect(page.getByRole('status')).toHaveText('Saved the limit of role viewer.');
    const row = page.getByTestId('limit-role-viewer');
    await expect(row.locator('td')).toHaveText(['Role viewer', '2', '0', 'inherits', /\d/, 'Remove']);
    await reviewShots(page, 'admin-limits');
    await page.screenshot({ path: screenshotPath('admin-limits.png'), fullPage: true });

    await row.getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByRole('status')).toHaveText('Removed the limit of role viewer; it inherits again.');
    await expect(row).toHaveCount(0);
    await server.getByRole('button', { name: 'Use the environment’s' }).click();
    await expect(page.getByRole('status')).toHaveText('The server-wide limit is the environment’s again.');
    const after = (await (await page.request.get('/api/v1/limits')).json()) as { overrides: unknown[] };
    expect(after.overrides).toEqual([]);
  });

  test('an admin materializes a view from Administration, then stops', async ({ page }) => {
    await signInAs(page, ADMIN);
    const headers = await csrfHeaders(page);
    const schema = uniqueName('mvadmin');
    expect((await page.request.post('/api/v1/schemas', { headers, data: { name: schema } })).status()).toBe(201);
    const made = await page.request.post('/api/v1/views', {
      headers,
      data: { schema, name: 'nations', sql: 'SELECT n_nationkey, n_name FROM dbD.nation' },
    });
    expect(made.status()).toBe(201);
    const view = `${schema}.nations`;

    await page.goto('/#/admin/cache');
    const form = page.getByRole('form', { name: 'Materialize a view' });
    await form.getByLabel('View').selectOption(view);
    await form.getByLabel('Refresh every (s)').fill('600');
    await form.getByLabel('Use while younger than (s)').fill('1800');
    await reviewShots(page, 'admin-materialize-form');
    await form.getByRole('button', { name: 'Materialize' }).click();
    await expect(form.getByRole('status')).toHaveText(`Materialized ${view}: 25 rows stored.`);
    const row = page.getByTestId(`materialization-${view}`);
    await expect(row.locator('td').nth(1)).toHaveText('ok');
    await expect(row.locator('td').nth(2)).toHaveText('25');
    await expect(row).toContainText('every 600 s');
    await expect(row).toContainText('1800 s');
    await reviewShots(page, 'admin-materialized');
    await page.screenshot({ path: screenshotPath('admin-materialize.png'), fullPage: true });

    // the same form changes the settings of a view already materialized
    await form.getByLabel('View').selectOption(view);
    await expect(form.getByLabel('Refresh every (s)')).toHaveValue('600');
    await form.getByLabel('Refresh every (s)').fill('');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(form.getByRole('status')).toHaveText(`Changed the settings of ${view}.`);
    await expect(row).toContainText('on demand');

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Stop' }).click();
    await expect(row).toHaveCount(0);
    const left = (await (await page.request.get('/api/v1/materializations')).json()) as { view: string }[];
    expect(left.map((m) => m.view)).not.toContain(view);
    const views = (await (await page.request.get('/api/v1/views')).json()) as { id: string; schema: string }[];
    for (const v of views.filter((x) => x.schema === schema))
      await page.request.delete(`/api/v1/views/${v.id}`, { headers });
  });
});
