import { compareVersions, parseVersion } from './update-policy'

/**
 * Whether the app got through start-up, kept across launches (a small file in the user-data
 * folder): written when a launch begins, marked healthy when the core is ready. A version that
 * fails to start twice in a row after an update offers the way back at the next launch.
 */
export interface LaunchRecord {
  version: string
  /** The version that ran before this one (set when the version changes: an update). */
  previousVersion?: string
  /** Launches of `version` that have not reached ready. */
  failedStarts: number
  /** The newest version that opened the data folder (see decideUpdate's dataVersion). */
  dataVersion?: string
}

export const FAILED_STARTS_BEFORE_ADVICE = 2

export function parseLaunchRecord(value: unknown): LaunchRecord | undefined {
  const v = value as Partial<LaunchRecord> | null
  if (!v || typeof v.version !== 'string' || typeof v.failedStarts !== 'number') return undefined
  return {
    version: v.version,
    failedStarts: Math.max(0, Math.floor(v.failedStarts)),
    ...(typeof v.previousVersion === 'string' ? { previousVersion: v.previousVersion } : {}),
    ...(typeof v.dataVersion === 'string' ? { dataVersion: v.dataVersion } : {})
  }
}

/** The record to write as a launch begins: counts one more unfinished start of this version. */
export function launchBegins(previous: LaunchRecord | undefined, version: string): LaunchRecord {
  if (previous && previous.version === version) return { ...previous, failedStarts: previous.failedStarts + 1 }
  return {
    version,
    failedStarts: 1,
    ...(previous ? { previousVersion: previous.version } : {}),
    ...(previous?.dataVersion ? { dataVersion: previous.dataVersion } : {})
  }
}

/** The record once the core is ready: no unfinished start, and this version has opened the data. */
export function launchSucceeded(record: LaunchRecord): LaunchRecord {
  const newer = !record.dataVersion || !parseVersion(record.dataVersion) || compareVersions(record.version, record.dataVersion) > 0
  return { ...record, failedStarts: 0, dataVersion: newer ? record.version : record.dataVersion! }
}

/**
 * What to tell the user at this launch (before the core starts), or undefined. `record` is what
 * launchBegins returned, so failedStarts counts this launch too.
 */
export function recoveryAdvice(record: LaunchRecord, backupsFolder: string): { title: string; message: string } | undefined {
  const earlier = record.failedStarts - 1
  if (earlier < FAILED_STARTS_BEFORE_ADVICE || !record.previousVersion || record.previousVersion === record.version) return undefined
  return {
    title: `Switchboard ${record.version} did not finish starting`,
    message:
      `Switchboard ${record.version} did not finish starting the last ${earlier} times since the update from ${record.previousVersion}. ` +
      `Your data was backed up before this version changed it: the backups marked "migration" in ${backupsFolder}. ` +
      `To go back, install ${record.previousVersion} again and restore that backup in Settings → Data → Backups; or try starting once more.`
  }
}
