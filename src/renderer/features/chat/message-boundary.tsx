import { Component, type ErrorInfo, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { messageText, type ContentPart } from '../../../shared/data/message'

/** The message's text, whatever shape its content has (it may be what broke the view). */
function rawText(content: unknown): string {
  try {
    if (Array.isArray(content)) return messageText(content as ContentPart[])
    return typeof content === 'string' ? content : JSON.stringify(content, null, 2)
  } catch {
    return String(content)
  }
}

function Fallback({ text }: { text: string }) {
  const { t } = useTranslation()
  return (
    <div className="px-6 py-3" data-testid="message-render-failed">
      <p role="note" className="mb-1 text-xs text-amber-700 dark:text-amber-400">
        {t('security.messageRenderFailed')}
      </p>
      <div className="max-w-3xl whitespace-pre-wrap break-words">{text}</div>
    </div>
  )
}

/**
 * One message that cannot be drawn (a renderer bug, hostile model output that slipped past
 * the limits) shows as its raw text with a notice, and the rest of the conversation stays.
 * Without this one bad message blanked the page on every opening of its conversation.
 */
export class MessageBoundary extends Component<{ content: readonly ContentPart[]; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('A message could not be rendered', error, info.componentStack)
  }

  override render(): ReactNode {
    return this.state.failed ? <Fallback text={rawText(this.props.content)} /> : this.props.children
  }
}
