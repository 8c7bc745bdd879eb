import { expect, test } from '@playwright/test'
import { openApp } from './helpers'

// Settings → About in browser mode: updates and the command-line tool belong to the installed
// desktop app; here the page says so instead of offering buttons that cannot work.
test('browser mode: updates are not available, and the command-line tool points to the checkout', async ({ page }) => {
  await openApp(page, '#/settings')
  const updates = page.getByTestId('updates')
  await expect(updates.getByTestId('updates-unavailable')).toContainText('Only the installed desktop app updates itself')
  await expect(updates.getByTestId('update-check')).toHaveCount(0)
  const cli = page.getByTestId('command-line')
  await expect(cli).toContainText('npx switchboard')
  await expect(cli.getByTestId('command-line-install')).toHaveCount(0)
})
