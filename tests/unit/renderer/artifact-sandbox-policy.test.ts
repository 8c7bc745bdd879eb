import { describe, expect, it } from 'vitest'
import { artifactSandboxPolicyFor, buildArtifactSandboxPolicy } from '../../../src/shared/security/artifact-sandbox-policy'
import { buildContentSecurityPolicy } from '../../../src/shared/security/csp'
import { artifactSandboxUrl, heartbeatVerdict, HUNG_AFTER_MS, LOAD_TIMEOUT_MS } from '../../../src/renderer/features/artifacts/heartbeat'

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]))
const ORIGIN = 'http://127.0.0.1:5405'

describe('the artifact sandbox policy', () => {
  it('allows no network: nothing but the runtime folder of the app’s origin, and is sandboxed even as a page of its own', () => {
    const d = directives(buildArtifactSandboxPolicy({ origin: ORIGIN, network: false }))
    expect(d.get('default-src')).toEqual(["'none'"])
    expect(d.get('connect-src')).toEqual([`${ORIGIN}/artifact-sandbox/`])
    expect(d.get('img-src')).toEqual(['data:', 'blob:'])
    expect(d.get('frame-src')).toEqual(["'none'"])
    expect(d.get('form-action')).toEqual(["'none'"])
    expect(d.get('sandbox')).toEqual(['allow-scripts'])
    for (const [name, values] of d) if (name !== 'sandbox') expect(values.some((v) => v === '*' || v === 'http:' || v === 'https:' || v === `${ORIGIN}` || v === "'self'"), name).toBe(false)
    // No data: scripts: Pyodide's classic-worker probe must fail (python-runner.ts).
    expect(d.get('script-src')).not.toContain('data:')
  })

  it('opens the network only for an artifact the user allowed (?net=1)', () => {
    const d = directives(artifactSandboxPolicyFor(new URL(`${ORIGIN}/artifact-sandbox/index.html?net=1`), ORIGIN)!)
    expect(d.get('connect-src')).toContain('https:')
    expect(d.get('sandbox')).toEqual(['allow-scripts'])
    expect(artifactSandboxPolicyFor(new URL(`${ORIGIN}/artifact-sandbox/index.html?net=0`), ORIGIN)).not.toContain('https:')
    expect(artifactSandboxPolicyFor(new URL(`${ORIGIN}/index.html`), ORIGIN)).toBeUndefined()
  })

  it('takes no source from a Host header that tries to add one', () => {
    const d = directives(buildArtifactSandboxPolicy({ origin: "http://evil; script-src *", network: false }))
    expect(d.get('connect-src')).toEqual(["'none'"])
    expect(directives(buildContentSecurityPolicy({ mode: 'browser', appOrigin: 'http://a b' })).get('frame-src')).toEqual(['blob:'])
  })

  it('lets the app frame only the runtime folder', () => {
    // On loopback the frame is another site than the app (the other loopback name).
    expect(directives(buildContentSecurityPolicy({ mode: 'browser', appOrigin: ORIGIN })).get('frame-src')).toEqual(['blob:', 'http://localhost:5405/artifact-sandbox/'])
    expect(directives(buildContentSecurityPolicy({ mode: 'browser', appOrigin: 'http://localhost:5405' })).get('frame-src')).toEqual(['blob:', `${ORIGIN}/artifact-sandbox/`])
    expect(directives(buildContentSecurityPolicy({ mode: 'browser', appOrigin: 'http://192.168.1.5:5405' })).get('frame-src')).toEqual(['blob:', 'http://192.168.1.5:5405/artifact-sandbox/'])
    expect(directives(buildContentSecurityPolicy({ mode: 'desktop', appOrigin: 'app://switchboard' })).get('frame-src')).toEqual(['blob:', 'app://switchboard/artifact-sandbox/'])
    expect(artifactSandboxUrl('app://switchboard', false)).toBe('app://switchboard/artifact-sandbox/index.html')
    expect(artifactSandboxUrl(ORIGIN, true)).toBe('http://localhost:5405/artifact-sandbox/index.html?net=1')
    expect(artifactSandboxUrl('http://10.0.0.2:80', false)).toBe('http://10.0.0.2:80/artifact-sandbox/index.html')
  })
})

describe('the heartbeat', () => {
  it('stops an artifact whose oldest unanswered ping is older than the limit', () => {
    expect(heartbeatVerdict({ startedAt: 0, ready: true }, 100_000)).toBe('ok')
    expect(heartbeatVerdict({ startedAt: 0, ready: true, waitingSince: 1000 }, 1000 + HUNG_AFTER_MS)).toBe('ok')
    expect(heartbeatVerdict({ startedAt: 0, ready: true, waitingSince: 1000 }, 1001 + HUNG_AFTER_MS)).toBe('hung')
  })

  it('gives the page time to load, then stops one that never says it is ready', () => {
    expect(heartbeatVerdict({ startedAt: 0, ready: false }, LOAD_TIMEOUT_MS)).toBe('ok')
    expect(heartbeatVerdict({ startedAt: 0, ready: false }, LOAD_TIMEOUT_MS + 1)).toBe('hung')
  })
})
