import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { PanelLeftClose, PanelLeftOpen } from 'lucide-react'
import { useLayout, type PanelId } from '../stores/layout-store'
import { shortcutLabel, type ShortcutId } from './shortcuts'
import { Drawer } from './drawer'

/**
 * A side panel that folds away to a thin rail with one button (remembered per window). The
 * panel itself is unchanged; only its presence is. On a narrow screen it is a drawer instead.
 */
export function CollapsiblePane({ panel, label, shortcut, children }: { panel: PanelId; label: string; shortcut: ShortcutId; children: ReactNode }) {
  const { t } = useTranslation()
  const collapsed = useLayout((s) => s.collapsed[panel])
  const toggle = useLayout((s) => s.toggle)
  const narrow = useLayout((s) => s.narrow)
  // One column on a narrow screen: the panel is a drawer the top bar's button opens.
  if (narrow)
    return (
      <Drawer panel={panel} label={label}>
        {children}
      </Drawer>
    )
  const title = `${collapsed ? t('polish.showPanel', { panel: label }) : t('polish.hidePanel', { panel: label })} (${shortcutLabel(shortcut)})`
  return (
    <div className="relative isolate flex shrink-0" data-testid={`pane-${panel}`} data-collapsed={collapsed || undefined}>
      {collapsed ? (
        <div className="flex w-10 flex-col items-center border-r border-zinc-200 pt-3 dark:border-zinc-800">
          <button type="button" onClick={() => toggle(panel)} aria-label={title} title={title} aria-expanded={false} data-testid={`toggle-${panel}`} className="rounded-md p-1.5 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800">
            <PanelLeftOpen aria-hidden className="size-4" />
          </button>
        </div>
      ) : (
        <>
          {children}
          <button
            type="button"
            onClick={() => toggle(panel)}
            aria-label={title}
            title={title}
            aria-expanded
            data-testid={`toggle-${panel}`}
            // On the divider, level with the page header; the header's padding keeps it clear of the title.
            className="absolute top-4 -right-3 z-10 grid size-6 place-items-center rounded-full border border-zinc-200 bg-white text-zinc-500 hover:text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:text-white"
          >
            <PanelLeftClose aria-hidden className="size-3.5" />
          </button>
        </>
      )}
    </div>
  )
}
