import { useEffect, useRef, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { useLayout, type PanelId } from '../stores/layout-store'

/**
 * A side panel as a drawer over the page (narrow screens): a backdrop that closes it when
 * tapped, Esc closes it, and the focus moves into it so the keyboard lands there.
 */
export function Drawer({ panel, label, children }: { panel: PanelId; label: string; children: ReactNode }) {
  const { t } = useTranslation()
  const open = useLayout((s) => s.drawer === panel)
  const close = useLayout((s) => s.closeDrawer)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!open) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      event.preventDefault()
      close()
    }
    window.addEventListener('keydown', onKey)
    ref.current?.querySelector<HTMLElement>('a, button, input')?.focus()
    return () => window.removeEventListener('keydown', onKey)
  }, [open, close])
  if (!open) return null
  return (
    <div className="fixed inset-0 z-50 flex" data-testid={`drawer-${panel}`}>
      <button type="button" aria-label={t('polish.closeDrawer')} className="absolute inset-0 bg-black/40" onClick={close} data-testid="drawer-backdrop" />
      <div ref={ref} role="dialog" aria-modal="true" aria-label={label} className="relative flex h-full max-w-[85vw] overflow-y-auto bg-white shadow-xl dark:bg-zinc-950">
        {children}
      </div>
    </div>
  )
}
