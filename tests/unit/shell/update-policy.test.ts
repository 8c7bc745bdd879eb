import { describe, expect, it } from 'vitest'
import { channelAccepts, channelOf, compareVersions, decideUpdate, parseUpdateMode, stagingBucket, updateFeedConfigured } from '../../../src/main/policy/update-policy'
import { launchBegins, launchSucceeded, parseLaunchRecord, recoveryAdvice } from '../../../src/main/policy/launch-health'

describe('versions', () => {
  it('compares by semantic-version precedence', () => {
    const sorted = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.2.0', '1.10.0', '2.0.0']
    for (let i = 0; i < sorted.length - 1; i++) {
      expect(compareVersions(sorted[i]!, sorted[i + 1]!), `${sorted[i]} < ${sorted[i + 1]}`).toBe(-1)
      expect(compareVersions(sorted[i + 1]!, sorted[i]!)).toBe(1)
    }
    expect(compareVersions('1.2.3+build.5', '1.2.3')).toBe(0)
    expect(compareVersions('v1.2.3', '1.2.3')).toBe(0)
    expect(() => compareVersions('1.2', '1.2.0')).toThrow(/Not a version: 1.2/)
  })

  it('knows the channel of a version, and which channels an install takes', () => {
    expect(channelOf('1.2.0')).toBe('latest')
    expect(channelOf('1.3.0-beta.2')).toBe('beta')
    expect(channelAccepts('latest', 'beta')).toBe(false)
    expect(channelAccepts('beta', 'latest')).toBe(true)
    expect(channelAccepts('alpha', 'beta')).toBe(true)
  })
})

describe('decideUpdate', () => {
  const base = { current: '1.2.0', offered: '1.3.0', installId: 'install-a', channel: 'latest' }

  it('takes a newer release on the install’s channel', () => {
    expect(decideUpdate(base)).toEqual({ take: true })
  })

  it('skips the same or an older version, a malformed one, and another channel’s', () => {
    expect(decideUpdate({ ...base, offered: '1.2.0' })).toMatchObject({ take: false, reason: 'not-newer' })
    expect(decideUpdate({ ...base, offered: '1.1.9' })).toMatchObject({ take: false, reason: 'not-newer' })
    expect(decideUpdate({ ...base, offered: 'latest' })).toMatchObject({ take: false, reason: 'invalid' })
    expect(decideUpdate({ ...base, offered: '1.3.0-beta.1' })).toMatchObject({ take: false, reason: 'other-channel' })
    expect(decideUpdate({ ...base, channel: 'beta', offered: '1.3.0-beta.1' })).toEqual({ take: true })
  })

  it('refuses a release older than the version that last opened the data (it could not read it)', () => {
    expect(decideUpdate({ ...base, dataVersion: '1.4.0' })).toMatchObject({ take: false, reason: 'database-newer', message: expect.stringContaining('1.4.0') })
    expect(decideUpdate({ ...base, dataVersion: '1.3.0' })).toEqual({ take: true })
    expect(decideUpdate({ ...base, dataVersion: '1.1.0' })).toEqual({ take: true })
  })

  it('rolls out by a stable bucket per install: the same answer each time, widening keeps who had it', () => {
    const installs = Array.from({ length: 2000 }, (_, i) => `install-${i}`)
    const takes = (percentage: number) => new Set(installs.filter((installId) => decideUpdate({ ...base, installId, stagingPercentage: percentage }).take))
    const ten = takes(10)
    const fifty = takes(50)
    expect(ten.size / installs.length).toBeGreaterThan(0.07)
    expect(ten.size / installs.length).toBeLessThan(0.13)
    expect(fifty.size / installs.length).toBeGreaterThan(0.45)
    expect(fifty.size / installs.length).toBeLessThan(0.55)
    for (const id of ten) expect(fifty.has(id)).toBe(true)
    expect(takes(10)).toEqual(ten)
    expect(takes(0).size).toBe(0)
    expect(takes(100).size).toBe(installs.length)
    expect(stagingBucket('install-1', '1.3.0')).toBe(stagingBucket('install-1', '1.3.0'))
    const out = installs.find((installId) => !decideUpdate({ ...base, installId, stagingPercentage: 10 }).take)!
    expect(decideUpdate({ ...base, installId: out, stagingPercentage: 10 })).toMatchObject({ take: false, reason: 'not-yet', message: expect.stringContaining('10 %') })
  })

  it('knows a build without a real update address, and reads the mode setting', () => {
    expect(updateFeedConfigured('https://updates.switchboard.invalid/desktop')).toBe(false)
    expect(updateFeedConfigured('http://updates.example.com/')).toBe(false)
    expect(updateFeedConfigured('https://updates.example.com/desktop')).toBe(true)
    expect(updateFeedConfigured(undefined)).toBe(false)
    expect(parseUpdateMode('automatic')).toBe('automatic')
    expect(parseUpdateMode('bogus')).toBe('notify')
  })
})

describe('launch health: the way back from an update that does not start', () => {
  it('counts unfinished starts of a version and advises going back after two', () => {
    let record = launchSucceeded(launchBegins(undefined, '1.2.0'))
    expect(record).toEqual({ version: '1.2.0', failedStarts: 0, dataVersion: '1.2.0' })
    record = launchBegins(record, '1.3.0') // updated; this launch crashes
    expect(recoveryAdvice(record, '/d/backups')).toBeUndefined()
    record = launchBegins(record, '1.3.0') // crashes again
    expect(recoveryAdvice(record, '/d/backups')).toBeUndefined()
    record = launchBegins(record, '1.3.0') // the third launch tells the user
    const advice = recoveryAdvice(record, '/d/backups')
    expect(advice?.message).toContain('the last 2 times since the update from 1.2.0')
    expect(advice?.message).toContain('/d/backups')
    expect(advice?.message).toContain('install 1.2.0 again')
    // Getting through start-up clears it, and the data is now 1.3.0's.
    record = launchSucceeded(record)
    expect(record).toMatchObject({ failedStarts: 0, dataVersion: '1.3.0', previousVersion: '1.2.0' })
    expect(recoveryAdvice(launchBegins(record, '1.3.0'), '/d/backups')).toBeUndefined()
  })

  it('going back keeps the newest data version (so updates older than it are refused)', () => {
    const newer = launchSucceeded(launchBegins(launchSucceeded(launchBegins(undefined, '1.2.0')), '1.3.0'))
    const back = launchSucceeded(launchBegins(newer, '1.2.0'))
    expect(back.dataVersion).toBe('1.3.0')
  })

  it('reads a damaged record as none', () => {
    expect(parseLaunchRecord(null)).toBeUndefined()
    expect(parseLaunchRecord({ version: 1 })).toBeUndefined()
    expect(parseLaunchRecord({ version: '1.0.0', failedStarts: 2.7, dataVersion: 5 })).toEqual({ version: '1.0.0', failedStarts: 2 })
  })
})
