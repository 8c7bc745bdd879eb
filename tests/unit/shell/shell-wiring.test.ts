import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The shell cannot run here (no Electron binary), so its few lines of glue are held to the
// policies by reading them: the places where a slip would reopen a door.
const mainDir = 'src/main'
const sources = readdirSync(mainDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: join(mainDir, f), text: readFileSync(join(mainDir, f), 'utf8') }))
const index = readFileSync('src/main/index.ts', 'utf8')

describe('the Electron shell’s glue', () => {
  it('reads ELECTRON_RENDERER_URL only through devServerUrl (ignored when packaged)', () => {
    const readers = sources.filter((s) => s.text.includes('ELECTRON_RENDERER_URL')).map((s) => s.file)
    expect(readers).toEqual([join(mainDir, 'policy/launch-env.ts')])
    expect(index).toMatch(/const devServer = devServerUrl\(process\.env, app\.isPackaged\)/)
  })

  it('removes loader variables before anything else runs', () => {
    expect(index.split('\n')[0]).toBe("import './early-env'")
    expect(readFileSync('src/main/early-env.ts', 'utf8')).toMatch(/for \(const name of loaderEnvToRemove\(process\.env, app\.isPackaged\)\) delete process\.env\[name\]/)
  })

  it('holds the quit back until the core has closed', () => {
    expect(index).toMatch(/app\.on\('will-quit', \(event\) => \{\s*if \(quit\.onWillQuit\(\)\) event\.preventDefault\(\)/)
    expect(index).not.toMatch(/core\?\.close\(\)\.finally/)
  })

  it('takes the data folder from --data-dir / SWITCHBOARD_DATA_DIR, and runs the CLI before the single-instance lock', () => {
    expect(index).toMatch(/desktopDataDir\(process\.argv, process\.env, app\.getPath\('userData'\), process\.cwd\(\)\)/)
    expect(index.indexOf('cliArguments(process.argv, app.isPackaged)')).toBeGreaterThan(0)
    expect(index.indexOf('cliArguments(process.argv, app.isPackaged)')).toBeLessThan(index.indexOf('requestSingleInstanceLock'))
  })
})
