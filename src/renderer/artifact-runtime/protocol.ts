/**
 * Messages between the app and the artifact runtime. Both sides treat what the other
 * sends as untrusted data: the app only shows it as text, the runtime only renders what it gets.
 */
export type ArtifactRuntimeType = 'html' | 'svg' | 'react' | 'python'

export type ToRuntime = { type: 'render'; artifactType: ArtifactRuntimeType; content: string; title: string } | { type: 'ping'; n: number }

export type FromRuntime =
  /** `load` and `net` as the runtime page was loaded with: the app checks they are the load it made. */
  | { type: 'ready'; load: string | null; net: boolean }
  | { type: 'pong'; n: number }
  | { type: 'rendered' }
  | { type: 'error'; message: string }
