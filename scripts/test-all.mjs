#!/usr/bin/env node
// `npm test`: everything — build, then typecheck, lint, import cycles in src/core, unit + integration (vitest),
// with end-to-end (Playwright in browser mode) beside them. On Linux the OS keychain is real in tests: when no keyring
// session is running, this re-runs itself inside `dbus-run-session` with an unlocked
// gnome-keyring and HOME/XDG folders in a temporary directory (never the user's own keyring).
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const bin = (name) => join(root, 'node_modules', '.bin', name)
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0

/**
 * A D-Bus session of its own with an unlocked gnome-keyring, and HOME/XDG folders in a temporary directory (never the
 * user's own keyring). Returns how to run a command inside it and how to end it; undefined where there is none to make.
 */
function keyringSession(prefix) {
  if (process.platform !== 'linux' || !has('dbus-run-session') || !has('gnome-keyring-daemon')) return undefined
  const home = mkdtempSync(join(tmpdir(), prefix))
  const env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    SWITCHBOARD_KEYRING_SESSION: '1'
  }
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 })
  return {
    env,
    /** `dbus-run-session` arguments that unlock the keyring, then exec `cmd args` in its place. */
    wrap: (cmd, args) => ['--', 'sh', '-c', `echo -n switchboard-tests | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$0" "$@"`, cmd, ...args],
    end() {
      // The keyring daemon can outlive the session when a step dies early: stop ours by its HOME.
      for (const pid of spawnSync('pgrep', ['gnome-keyring'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)) {
        try {
          if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`HOME=${home}`)) process.kill(Number(pid))
        } catch {
          // already gone
        }
      }
      rmSync(home, { recursive: true, force: true })
    }
  }
}

if (!process.env.SWITCHBOARD_KEYRING_SESSION) {
  const session = keyringSession('switchboard-test-home-')
  if (session) {
    const result = spawnSync('dbus-run-session', session.wrap(process.execPath, [join(root, 'scripts/test-all.mjs'), ...process.argv.slice(2)]), { stdio: 'inherit', env: session.env, cwd: root })
    session.end()
    process.exit(result.status ?? 1)
  }
}

const only = new Set(process.argv.slice(2))
const want = (step) => only.size === 0 || only.has(step)
const results = []
let failed = false

function step(name, cmd, args, options = {}) {
  if (!want(name)) return
  const started = Date.now()
  console.log(`\n▶ ${name}: ${[cmd, ...args].map((a) => a.replace(root + '/', '')).join(' ')}`)
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...options.env } })
  const ok = r.status === 0
  results.push({ name, ok, seconds: (Date.now() - started) / 1000 })
  if (!ok) failed = true
}

/**
 * The end-to-end tests run beside the other steps, started as soon as the build is there: they
 * mostly wait on a browser and a server, the other steps mostly on the CPU, and one after the
 * other they took most of CI's 20 minutes. They run as SWITCHBOARD_E2E_SHARDS (2) Playwright
 * processes, each with its own two servers (ports E2E_PORT, +1), data folders, report and — where
 * the keychain is real — a keyring session of its own, so no test sees another's keys. The spec
 * files are dealt out largest first to the shard with the least so far (a file's size follows its
 * run time closely enough, and needs no list kept by hand). Each shard's output goes to
 * test-results/e2e-N.log and is printed whole when it ends. SWITCHBOARD_TEST_SERIAL=1 runs every
 * step one after the other, the end-to-end tests as one process.
 */
function startInBackground(name, cmd, args, env = process.env) {
  const started = Date.now()
  const logFile = join(root, 'test-results', `${name.replace(/\W+/g, '-')}.log`)
  console.log(`\n▶ ${name} (in the background, output in ${logFile.replace(root + '/', '')}): ${[cmd, ...args].map((a) => a.replace(root + '/', '')).join(' ')}`)
  const fd = openSync(logFile, 'w')
  const child = spawn(cmd, args, { stdio: ['ignore', fd, fd], cwd: root, env })
  closeSync(fd)
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      console.log(`\n▶ ${name}: output\n`)
      console.log(readFileSync(logFile, 'utf8'))
      const ok = code === 0
      results.push({ name, ok, seconds: (Date.now() - started) / 1000 })
      if (!ok) failed = true
      resolve()
    })
  })
}

/** The spec files in `count` groups of about the same size, largest first into the smallest group. */
function dealSpecs(files, count) {
  const groups = Array.from({ length: count }, () => ({ bytes: 0, files: [] }))
  for (const file of [...files].sort((x, y) => y.bytes - x.bytes || x.path.localeCompare(y.path))) {
    const smallest = groups.reduce((min, g) => (g.bytes < min.bytes ? g : min))
    smallest.bytes += file.bytes
    smallest.files.push(file.path)
  }
  return groups.filter((g) => g.files.length > 0).map((g) => g.files.sort())
}

function startEndToEnd() {
  if (!want('e2e')) return undefined
  const dir = join(root, 'tests/e2e')
  const specs = readdirSync(dir)
    .filter((f) => f.endsWith('.e2e.ts'))
    .map((f) => ({ path: `tests/e2e/${f}`, bytes: statSync(join(dir, f)).size }))
  const count = Math.max(1, Number(process.env.SWITCHBOARD_E2E_SHARDS ?? 2) || 1)
  const groups = dealSpecs(specs, count)
  const basePort = Number(process.env.E2E_PORT ?? 5391)
  return Promise.all(
    groups.map((files, i) => {
      const n = i + 1
      const own = {
        E2E_PORT: String(basePort + 2 * i),
        E2E_REPORT: `test-results/e2e-report-${n}.json`,
        E2E_OUTPUT_DIR: `test-results/e2e-${n}`
      }
      const name = groups.length > 1 ? `e2e ${n}/${groups.length}` : 'e2e'
      // The first shard uses this run's keyring session; every other one gets its own.
      const session = i > 0 && process.env.SWITCHBOARD_KEYRING_SESSION ? keyringSession(`switchboard-test-home-${n}-`) : undefined
      const done = session
        ? startInBackground(name, 'dbus-run-session', session.wrap(bin('playwright'), ['test', ...files]), { ...session.env, ...own })
        : startInBackground(name, bin('playwright'), ['test', ...files], { ...process.env, ...own })
      return done.then(() => session?.end())
    })
  )
}

rmSync(join(root, 'test-results'), { recursive: true, force: true })
mkdirSync(join(root, 'test-results'), { recursive: true })
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const e2eMissing = want('e2e') && !existsSync(chromium)
const serial = process.env.SWITCHBOARD_TEST_SERIAL === '1'
step('build', bin('electron-vite'), ['build'])
let e2eDone
if (e2eMissing) {
  console.error(`\nNo Chromium at ${chromium}: install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.`)
  results.push({ name: 'e2e', ok: false, seconds: 0 })
  failed = true
} else if (!serial && results.every((r) => r.ok)) {
  e2eDone = startEndToEnd()
}
step('typecheck', bin('tsc'), ['-b'])
step('lint', bin('eslint'), ['.', '--max-warnings=0'])
// No import cycle inside src/core (madge exits non-zero on one).
step('cycles', bin('madge'), ['--circular', '--extensions', 'ts', '--ts-config', 'tsconfig.node.json', 'src/core'])
step('unit', bin('vitest'), ['run', '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest-report.json'])
if (e2eDone) await e2eDone
else if (!e2eMissing && serial) step('e2e', bin('playwright'), ['test'], { env: { E2E_REPORT: 'test-results/e2e-report-1.json' } })
// A failed build leaves no app to drive: the e2e step did not run, and the run is already red.

// One closing line that counts every test case, whichever runner ran it.
let passed = 0
let failedCases = 0
let skipped = 0
const read = (file) => (existsSync(join(root, file)) ? JSON.parse(readFileSync(join(root, file), 'utf8')) : undefined)
const vitest = read('test-results/vitest-report.json')
if (vitest) {
  passed += vitest.numPassedTests
  failedCases += vitest.numFailedTests
  skipped += vitest.numPendingTests + (vitest.numTodoTests ?? 0)
}
let flaky = 0
for (const file of readdirSync(join(root, 'test-results')).filter((f) => /^e2e-report-\d+\.json$/.test(f))) {
  const e2e = read(`test-results/${file}`)
  if (!e2e?.stats) continue
  passed += e2e.stats.expected
  failedCases += e2e.stats.unexpected
  skipped += e2e.stats.skipped
  flaky += e2e.stats.flaky // passed only on the retry CI allows: named, never hidden
}
console.log('\nSummary')
for (const r of results) console.log(`  ${r.ok ? '✓' : '✗'} ${r.name.padEnd(10)} ${r.seconds.toFixed(1)} s`)
if (existsSync(join(root, 'test-results/screenshots'))) {
  console.log(`  screenshots: test-results/screenshots/ (${readdirSync(join(root, 'test-results/screenshots')).length} files)`)
}
if (failed && failedCases === 0) failedCases = results.filter((r) => !r.ok).length
console.log(`\n${passed} passed, ${failedCases} failed${flaky ? `, ${flaky} flaky (failed once, passed on the retry: see the list above)` : ''}${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed ? 1 : 0)
