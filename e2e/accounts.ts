import { expect, request, type Browser, type Page } from '@playwright/test';
import { ADMIN_PASSWORD, csrfHeaders } from './studio.js';

export type RoleName = 'admin' | 'analyst' | 'viewer';
export interface Account {
  username: string;
  password: string;
  role: RoleName;
}

/** Names unique per run, so a test can be repeated against the same studio. */
export function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

/** Signs in through the form and waits for the top bar; unlike signIn it does not need the editor. */
export async function signInAs(page: Page, a: Account): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(a.username);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('current-user')).toHaveText(`${a.username} (${a.role})`);
}

/** A login with no cookies at all: the status says whether the credentials are accepted. */
export async function loginStatus(baseURL: string | undefined, a: Account): Promise<number> {
  const ctx = await request.newContext({ baseURL });
  try {
    const res = await ctx.post('/api/v1/auth/login', { data: { username: a.username, password: a.password } });
    return res.status();
  } finally {
    await ctx.dispose();
  }
}

/** Creates a user through the API with the admin's session in `adminPage`. */
export async function createUser(adminPage: Page, role: RoleName, prefix: string = role): Promise<Account> {
  const a = { username: uniqueName(prefix), password: `pw-${uniqueName('x')}-Secret`, role };
  const res = await adminPage.request.post('/api/v1/users', { data: a, headers: await csrfHeaders(adminPage) });
  expect(res.status()).toBe(201);
  return a;
}

/** A page in a fresh browser context: nothing shared with the admin's cookies. */
export async function freshPage(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const ctx = await browser.newContext({ baseURL });
  return ctx.newPage();
}

export const ADMIN: Account = { username: 'admin', password: ADMIN_PASSWORD, role: 'admin' };
