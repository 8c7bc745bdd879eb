import type { ArtifactType } from './artifact-tag'

/** Download names for artifacts (a module of its own: only the lazily loaded panel needs it). */

const CODE_EXTENSIONS: Record<string, string> = {
  javascript: 'js', js: 'js', typescript: 'ts', ts: 'ts', tsx: 'tsx', jsx: 'jsx', python: 'py', py: 'py', rust: 'rs', rs: 'rs', go: 'go',
  java: 'java', kotlin: 'kt', swift: 'swift', c: 'c', cpp: 'cpp', 'c++': 'cpp', csharp: 'cs', cs: 'cs', ruby: 'rb', php: 'php',
  shell: 'sh', bash: 'sh', sh: 'sh', sql: 'sql', json: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', css: 'css', html: 'html',
  markdown: 'md', md: 'md', xml: 'xml', lua: 'lua', r: 'r', dart: 'dart', scala: 'scala'
}

/** The file extension a download gets. */
export function artifactExtension(type: ArtifactType, language?: string): string {
  switch (type) {
    case 'html':
      return 'html'
    case 'svg':
      return 'svg'
    case 'react':
      return 'jsx'
    case 'python':
      return 'py'
    case 'mermaid':
      return 'mmd'
    case 'code':
      return CODE_EXTENSIONS[(language ?? '').toLowerCase()] ?? 'txt'
  }
}

export function artifactMimeType(type: ArtifactType): string {
  return type === 'html' ? 'text/html' : type === 'svg' ? 'image/svg+xml' : 'text/plain'
}

/** A file name from the title: no path separators or control characters, never empty. */
export function artifactFileName(title: string, type: ArtifactType, language?: string): string {
  // eslint-disable-next-line no-control-regex
  const base = title.replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80) || 'artifact'
  return `${base}.${artifactExtension(type, language)}`
}
