import { describe, expect, it } from 'vitest'
import { decideWindowOpen, isAllowedNavigation, isSafeExternalUrl, linkTargetCheck, parseStrictUrl, safeLinkHref } from '../../../src/shared/security/url-policy'

const origins = { appOrigin: 'app://switchboard' }

// The hostile inputs of issue 2, each refused by openExternal and by the navigation guard.
const hostile: [string, string][] = [
  ['a local file', 'file:///etc/passwd'],
  ['javascript:', 'javascript:alert(1)'],
  ['credentials that disguise the host', 'https://evil.example@good.example'],
  ['an unknown OS scheme', 'calculator://x'],
  ['a UNC path', '\\\\host\\share'],
  ['ms-msdt (Follina)', 'ms-msdt:/id PCWDiagnostic /skip force'],
  ['an upper-case scheme', 'HTTPS://example.com'],
  ['a mixed-case javascript scheme', 'JavaScript:alert(1)'],
  ['user and password', 'https://user:pass@example.com/'],
  ['a newline', 'https://example.com/\nfoo'],
  ['a NUL byte', 'https://example.com/\u0000'],
  ['a tab inside the scheme', 'java\tscript:alert(1)'],
  ['a right-to-left override', 'https://example.com/\u202egnp.exe'],
  ['leading whitespace', ' https://example.com'],
  ['a backslash after the scheme', 'https:\\\\evil.example'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['vbscript:', 'vbscript:msgbox(1)'],
  ['plain http', 'http://example.com'],
  ['an empty string', ''],
  ['a relative path', '/etc/passwd'],
  ['search-ms', 'search-ms:query=x'],
  ['smb', 'smb://host/share']
]

describe('openExternal allowlist', () => {
  it.each(hostile)('refuses %s', (_name, url) => {
    expect(isSafeExternalUrl(url)).toBe(false)
  })

  it('refuses values that are not strings', () => {
    for (const value of [undefined, null, 42, {}, ['https://example.com']]) expect(isSafeExternalUrl(value)).toBe(false)
  })

  it('allows plain https links and mailto', () => {
    expect(isSafeExternalUrl('https://platform.openai.com/api-keys')).toBe(true)
    expect(isSafeExternalUrl('https://example.com/a?b=c#d')).toBe(true)
    expect(isSafeExternalUrl('mailto:support@example.com')).toBe(true)
  })

  it('refuses an absurdly long URL', () => {
    expect(isSafeExternalUrl(`https://example.com/${'a'.repeat(9000)}`)).toBe(false)
  })
})

describe('navigation guard', () => {
  it.each(hostile)('refuses %s', (_name, url) => {
    expect(isAllowedNavigation(url, origins)).toBe(false)
  })

  it('allows the app origin and the dev server only', () => {
    expect(isAllowedNavigation('app://switchboard/index.html#/chat', origins)).toBe(true)
    expect(isAllowedNavigation('app://other/index.html', origins)).toBe(false)
    expect(isAllowedNavigation('https://example.com', origins)).toBe(false)
    const dev = { ...origins, devOrigin: 'http://localhost:5173' }
    expect(isAllowedNavigation('http://localhost:5173/#/settings', dev)).toBe(true)
    expect(isAllowedNavigation('http://localhost:5174/', dev)).toBe(false)
    expect(isAllowedNavigation('http://localhost:5173@evil.example/', dev)).toBe(false)
  })
})

describe('window-open handler', () => {
  it('never opens an Electron window; only safe links go to the OS browser', () => {
    expect(decideWindowOpen('https://example.com')).toEqual({ action: 'deny', openExternally: true })
    expect(decideWindowOpen('file:///etc/passwd')).toEqual({ action: 'deny', openExternally: false })
    expect(decideWindowOpen('javascript:alert(1)')).toEqual({ action: 'deny', openExternally: false })
  })
})

describe('strict URL parsing', () => {
  it('parses ordinary URLs', () => {
    expect(parseStrictUrl('https://example.com/x')?.hostname).toBe('example.com')
  })
})

describe('mailto: allows only the fields of a message', () => {
  it('takes to, subject, body, cc and bcc', () => {
    expect(isSafeExternalUrl('mailto:a@example.com')).toBe(true)
    expect(isSafeExternalUrl('mailto:a@example.com?subject=Hi&body=Hello%20there&cc=b@example.com&bcc=c@example.com&to=d@example.com')).toBe(true)
  })
  it('refuses attachments and any other field', () => {
    for (const url of ['mailto:a@example.com?attach=/etc/passwd', 'mailto:a@example.com?Attach=C:/x', 'mailto:a@example.com?attachment=~/.ssh/id_rsa', 'mailto:a@example.com?subject=x&file=/etc/shadow', 'mailto:?x-mailer=1']) {
      expect(isSafeExternalUrl(url)).toBe(false)
    }
  })
})

describe('the renderer link policy', () => {
  it('keeps http(s) and plain mailto links', () => {
    expect(safeLinkHref('https://example.com/a?b#c')).toBe('https://example.com/a?b#c')
    expect(safeLinkHref('http://example.com/')).toBe('http://example.com/')
    expect(safeLinkHref('mailto:a@example.com?subject=x')).toBe('mailto:a@example.com?subject=x')
  })
  it.each([
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'vbscript:x',
    'blob:https://example.com/1',
    '/relative/path',
    '#fragment',
    '',
    'https://user:pw@example.com/',
    'mailto:a@example.com?attach=/etc/passwd'
  ])('drops %s', (url) => {
    expect(safeLinkHref(url)).toBeUndefined()
  })
  it('shows the real target of links whose text hides characters or whose host is an IDN', () => {
    expect(linkTargetCheck('https://example.com', 'https://example.com/')).toBeUndefined()
    expect(linkTargetCheck('moc.elgoog\u202e//:sptth', 'https://evil.example/')).toEqual({ host: 'evil.example', href: 'https://evil.example/' })
    expect(linkTargetCheck('pay\u200bpal.com', 'https://evil.example/')?.host).toBe('evil.example')
    expect(linkTargetCheck('apple.com', 'https://\u0430pple.com/')?.host).toBe('xn--pple-43d.com')
  })
})
