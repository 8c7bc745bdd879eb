import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, start } from './server-harness'

afterEach(cleanup)

// Browsers ask every origin for /favicon.ico outside the app's path, where the token cookie is
// not sent: a 403 there logged an error in the console on every page load.
describe('/favicon.ico', () => {
  it('answers without the token and without an error status, and gives nothing away', async () => {
    const { base } = await start()
    const res = await fetch(`${base}/favicon.ico`)
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
  })
  it('does so in password mode too', async () => {
    const { base } = await start('a long enough password')
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(204)
  })
})
