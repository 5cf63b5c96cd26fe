import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';

/**
 * Screenshots for reviewing a screen at both widths the studio is designed for, in both themes.
 * Only taken when JUNCTION_SHOTS_DIR names a folder: the suite itself asserts, it does not look.
 */
export async function reviewShots(page: Page, name: string, target?: Locator): Promise<void> {
  const dir = process.env.JUNCTION_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const size = page.viewportSize() ?? { width: 1440, height: 900 };
  const theme = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  for (const width of [1280, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    for (const t of ['light', 'dark'] as const) {
      // the theme's CSS variables only: Monaco keeps its own theme, which is not what is reviewed
      await page.evaluate((v) => {
        document.documentElement.dataset.theme = v;
        document.documentElement.style.colorScheme = v;
      }, t);
      const file = path.join(dir, `${name}-${width}-${t}.png`);
      if (target) await target.screenshot({ path: file });
      else await page.screenshot({ path: file, fullPage: true });
    }
  }
  await page.evaluate((v) => {
    document.documentElement.dataset.theme = v;
    document.documentElement.style.colorScheme = v;
  }, theme);
  await page.setViewportSize(size);
}
