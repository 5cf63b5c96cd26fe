import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';

/** Screenshots land in <repo>/test-results/screenshots whatever the working directory. */
export function screenshotPath(name: string): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'screenshots', name);
}

export const ADMIN_PASSWORD = process.env.JUNCTION_E2E_ADMIN_PASSWORD ?? 'e2e-Admin-Passw0rd';

/** Signs in through the login form and waits for the workspace. */
export async function signIn(
  page: Page,
  user = { username: 'admin', password: ADMIN_PASSWORD, role: 'admin' },
): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('current-user')).toHaveText(`${user.username} (${user.role})`);
  // Run stays disabled until the lazily loaded editor is ready
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
}

/** The editor's visible text, spaces normalised (Monaco renders them as no-break spaces). */
export async function editorText(page: Page): Promise<string> {
  const lines = page.getByTestId('sql-editor').locator('.view-line');
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

/** Replaces the editor text as typed input (insertText: no auto-closing quotes or brackets). */
export async function setSql(page: Page, sql: string): Promise<void> {
  const lines = page.getByTestId('sql-editor').locator('.view-lines');
  await lines.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
  await expect.poll(() => editorText(page)).toBe(sql);
}

/** Loads a saved example by its JDV letter ("A".."H", named "A · …") into the editor. */
export async function loadExample(page: Page, letter: string): Promise<void> {
  await page.getByRole('tab', { name: 'Saved' }).click();
  await page.getByRole('button', { name: new RegExp(`^${letter} · `) }).click();
}

/** Headers for a cookie-authenticated write made with page.request (double-submit CSRF). */
export async function csrfHeaders(page: Page): Promise<Record<string, string>> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'junction_csrf');
  if (!cookie) throw new Error('not signed in: no junction_csrf cookie');
  return { 'x-junction-csrf': cookie.value };
}
