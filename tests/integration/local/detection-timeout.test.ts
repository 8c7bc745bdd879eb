import { createServer, type AddressInfo, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { DetectionService } from '../../../src/core/local/detection-service'
import { LocalSettings } from '../../../src/core/local/local-settings'
import { featureSettingsOver } from '../../../src/core/store/repositories/settings'

describe('DetectionService timeouts', () => {
  it('a server that accepts but never answers is reported as not running within the timeout', async () => {
    const sockets: Socket[] = []
    const silent = createServer((socket) => sockets.push(socket))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
    const port = (silent.address() as AddressInfo).port
    // The addresses live in the settings table (decision 158); here, rows held in memory.
    const rows: Record<string, unknown> = {}
    const table = featureSettingsOver({ get: () => rows, set: (patch) => Object.assign(rows, patch) })
    const settings = new LocalSettings(() => table)
    settings.set('xinference', `http://127.0.0.1:${port}`)
    const detection = new DetectionService(settings, { timeoutMs: 200 })
    const started = performance.now()
    const status = await detection.detectOne('xinference')
    expect(performance.now() - started).toBeLessThan(1500)
    expect(status).toMatchObject({ kind: 'xinference', running: false, custom: true })
    expect(status.reason).toMatch(/No answer within 200 ms/)
    expect(status.reasonCode).toBe('timeout')
    for (const s of sockets) s.destroy()
    silent.close()
  })
})
