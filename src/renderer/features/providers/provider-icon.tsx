import { PROVIDER_ICONS } from './provider-icons'

/** Up to two letters of the name ("LM Studio" → "LS", "xAI" → "XA"), for providers without a logo. */
export const monogram = (name: string): string => {
  const words = name.replace(/[^\p{L}\p{N} ]/gu, ' ').trim().split(/\s+/).filter(Boolean)
  const letters = words.length > 1 ? words[0]![0]! + words[1]![0]! : (words[0] ?? '?').slice(0, 2)
  return letters.toUpperCase()
}

/**
 * A provider's logo (or the letters a custom provider chose), drawn in the text colour (a CSS mask over the monochrome SVG, so it
 * follows the theme); a monogram when the icon set has none. Decorative: the name is always
 * written next to it.
 */
export function ProviderIcon({ id, name, letters, className = 'size-5' }: { id: string; name: string; letters?: string; className?: string }) {
  const url = PROVIDER_ICONS[id]
  if (!url || letters) {
    return (
      <span aria-hidden data-provider-icon="monogram" className={`grid shrink-0 place-items-center rounded bg-zinc-200 text-[9px] font-semibold text-zinc-700 dark:bg-zinc-700 dark:text-zinc-200 ${className}`}>
        {letters ? letters.toUpperCase() : monogram(name)}
      </span>
    )
  }
  const mask = `url("${url}") center / contain no-repeat`
  return <span aria-hidden data-provider-icon={id} className={`inline-block shrink-0 bg-current ${className}`} style={{ mask, WebkitMask: mask }} />
}
