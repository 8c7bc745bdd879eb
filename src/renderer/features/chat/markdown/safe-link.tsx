import * as Dialog from '@radix-ui/react-dialog'
import { useState, type MouseEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { linkTargetCheck, safeLinkHref } from '../../../../shared/security/url-policy'

const textOf = (node: ReactNode): string => {
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (Array.isArray(node)) return node.map(textOf).join('')
  if (node && typeof node === 'object' && 'props' in node) return textOf((node as { props: { children?: ReactNode } }).props.children)
  return ''
}

// A bidi override inside a link's text ends with the link instead of reversing the text after it.
const ISOLATE = { unicodeBidi: 'isolate' } as const

/**
 * Every link the renderer draws from model output (markdown links, citations). The address
 * goes through the one link policy: a refused one (javascript:, data:, file:, relative…) is
 * shown as text with no anchor, so it can neither run nor open the app's own address. A link
 * whose text hides bidi or zero-width characters, or whose host is an IDN, first shows where
 * it really goes.
 */
export function SafeLink({ href, children, className = 'text-accent underline underline-offset-2' }: { href: string | undefined; children: ReactNode; className?: string }) {
  const { t } = useTranslation()
  const [checking, setChecking] = useState(false)
  const safe = safeLinkHref(href)
  if (!safe) {
    return (
      <span className="text-zinc-600 dark:text-zinc-400" style={ISOLATE} data-testid="blocked-link">
        {children}
      </span>
    )
  }
  const check = linkTargetCheck(textOf(children), safe)
  const onClick = check
    ? (event: MouseEvent) => {
        event.preventDefault()
        setChecking(true)
      }
    : undefined
  return (
    <>
      <a href={safe} target="_blank" rel="noreferrer noopener" className={className} style={ISOLATE} onClick={onClick} data-link-check={check ? 'true' : undefined}>
        {children}
      </a>
      {check && checking && (
        <Dialog.Root open onOpenChange={(open) => !open && setChecking(false)}>
          <Dialog.Portal>
            <Dialog.Overlay className="fixed inset-0 bg-black/40" />
            <Dialog.Content
              className="fixed top-1/2 left-1/2 w-[min(92vw,28rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl dark:bg-zinc-900"
              data-testid="link-check"
            >
              <Dialog.Title className="text-lg font-semibold">{t('security.linkCheckTitle')}</Dialog.Title>
              <Dialog.Description className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t('security.linkCheckBody')}</Dialog.Description>
              {/* dir=ltr and isolation: the target is shown as it is, whatever the text around it. */}
              <p className="mt-3 text-base font-semibold break-all" dir="ltr" style={{ unicodeBidi: 'isolate' }} data-testid="link-check-host">
                {check.host}
              </p>
              <p className="mt-1 font-mono text-xs break-all text-zinc-600 dark:text-zinc-400" dir="ltr" style={{ unicodeBidi: 'isolate' }} data-testid="link-check-href">
                {check.href}
              </p>
              <div className="mt-4 flex justify-end gap-2 text-sm">
                <Dialog.Close className="rounded-md px-3 py-1.5 hover:bg-zinc-100 dark:hover:bg-zinc-800">{t('security.linkCancel')}</Dialog.Close>
                <button
                  type="button"
                  className="rounded-md bg-accent px-3 py-1.5 text-white"
                  data-testid="link-check-open"
                  onClick={() => {
                    window.open(check.href, '_blank', 'noopener,noreferrer')
                    setChecking(false)
                  }}
                >
                  {t('security.linkOpen')}
                </button>
              </div>
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      )}
    </>
  )
}
