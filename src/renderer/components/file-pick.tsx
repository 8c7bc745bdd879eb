import { useRef, type ReactElement } from 'react'

/**
 * A hidden file input and the function that opens it: the one place the "pick a file, read it
 * once, let the same file be picked again" pattern lives. The input's value is cleared on every
 * choice, so choosing the same file twice (after a failed import, say) fires again.
 */
export function useFilePick(options: { accept: string; testId: string; onFile(file: File): void }): { open(): void; input: ReactElement } {
  const ref = useRef<HTMLInputElement>(null)
  const input = (
    <input
      ref={ref}
      type="file"
      accept={options.accept}
      className="hidden"
      data-testid={options.testId}
      onChange={(e) => {
        const file = e.target.files?.[0]
        e.target.value = ''
        if (file) options.onFile(file)
      }}
    />
  )
  return { open: () => ref.current?.click(), input }
}
