import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loginShellCommand, mergePath, parseLoginShellPath, PATH_SENTINEL, shouldReadLoginShellPath } from '../../../src/main/policy/login-shell-path'

describe('the login shell’s PATH', () => {
  it('is read by the packaged app on macOS and Linux only', () => {
    expect(shouldReadLoginShellPath('darwin', true)).toBe(true)
    expect(shouldReadLoginShellPath('linux', true)).toBe(true)
    expect(shouldReadLoginShellPath('win32', true)).toBe(false)
    expect(shouldReadLoginShellPath('darwin', false)).toBe(false)
  })

  it('finds PATH between the sentinels, whatever the start-up files print around it', () => {
    const noisy = `Welcome back!\nnvm: using node 22\n${PATH_SENTINEL}/opt/homebrew/bin:/Users/u/.nvm/versions/node/v22/bin:/usr/bin${PATH_SENTINEL}\nbye\n`
    expect(parseLoginShellPath(noisy)).toBe('/opt/homebrew/bin:/Users/u/.nvm/versions/node/v22/bin:/usr/bin')
    expect(parseLoginShellPath('no sentinel here')).toBeUndefined()
    expect(parseLoginShellPath(`${PATH_SENTINEL}/usr/bin`)).toBeUndefined()
    expect(parseLoginShellPath(`${PATH_SENTINEL}${PATH_SENTINEL}`)).toBeUndefined()
    expect(parseLoginShellPath(`${PATH_SENTINEL}/usr/bin\n/evil${PATH_SENTINEL}`)).toBeUndefined()
    // Relative entries (".", "bin") would make commands depend on the working folder: dropped.
    expect(parseLoginShellPath(`${PATH_SENTINEL}.:bin:/usr/local/bin${PATH_SENTINEL}`)).toBe('/usr/local/bin')
  })

  it('puts the shell’s entries first and keeps the app’s own', () => {
    expect(mergePath('/opt/homebrew/bin:/usr/bin', '/usr/bin:/bin:/usr/sbin')).toBe('/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin')
    expect(mergePath(undefined, '/usr/bin')).toBe('/usr/bin')
  })

  it('runs in a real shell: a login shell whose profile extends PATH and prints a greeting', () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-shell-'))
    try {
      writeFileSync(join(home, '.profile'), 'echo "hello from .profile"\nexport PATH="/opt/from-profile/bin:$PATH"\n')
      const { file, args } = loginShellCommand('/bin/sh', 'linux')
      expect(file).toBe('/bin/sh')
      const output = execFileSync(file, args, { env: { HOME: home, PATH: '/usr/bin:/bin' }, encoding: 'utf8' })
      expect(output).toContain('hello from .profile')
      // /etc/profile may set its own PATH first; the user's profile adds to it.
      const path = parseLoginShellPath(output)!
      expect(path.startsWith('/opt/from-profile/bin:')).toBe(true)
      expect(path.split(':')).toContain('/usr/bin')
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('asks interactive login shells (zsh and bash read PATH from their rc files), fish in its own syntax', () => {
    expect(loginShellCommand('/bin/zsh', 'darwin').args[0]).toBe('-ilc')
    expect(loginShellCommand(undefined, 'darwin').file).toBe('/bin/zsh')
    expect(loginShellCommand('zsh', 'darwin').file).toBe('/bin/zsh')
    expect(loginShellCommand('/usr/local/bin/fish', 'darwin').args[1]).toContain('string join : $PATH')
  })
})
