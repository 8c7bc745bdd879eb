import { useTranslation } from 'react-i18next'
import { MessageSquare } from 'lucide-react'
import type { PickerModel } from '../../../shared/bridge/procedures/providers'
import { chatActions } from './chat-store'
import { KeyStorageNote } from '../providers/key-storage-note'
import { RecommendedModels } from '../local-models/recommended-models'

/**
 * What a conversation with no messages shows: a hint, or on the first run (no key, no model chosen)
 * an offline chat with the models on disk first, then the recommended ones.
 */
export function ChatEmptyState({ firstRun, offline, hasModel, noProviders }: { firstRun: boolean; offline: PickerModel[]; hasModel: boolean; noProviders: boolean }) {
  const { t } = useTranslation()
  return (
    <div className="grid flex-1 place-items-center overflow-y-auto p-8 text-center">
      <div className={firstRun ? 'max-w-xl space-y-2' : 'max-w-md space-y-2'}>
        <MessageSquare aria-hidden className="mx-auto size-10 text-accent" strokeWidth={1.6} />
        {firstRun ? (
          <div className="space-y-2" data-testid="chat-offline">
            <p className="text-sm font-medium">{t('chat.offlineTitle')}</p>
            {offline.length > 0 && (
              <>
                <p className="text-xs text-zinc-500">{t('chat.offlineBody')}</p>
                <ul className="space-y-1">
                  {offline.map((m) => (
                    <li key={m.id}>
                      <button
                        onClick={() => void chatActions.setModel('builtin', m.id)}
                        data-testid={`chat-offline-${m.id}`}
                        className="rounded-md border border-zinc-300 px-3 py-1 font-mono text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
                      >
                        {m.displayName ?? m.id}
                      </button>
                    </li>
                  ))}
                </ul>
              </>
            )}
            <p className="text-xs text-zinc-500">{offline.length > 0 ? t('chat.offlineOrDownload') : t('chat.offlineDownload')}</p>
            <RecommendedModels onChat={(id) => chatActions.setModel('builtin', id)} />
          </div>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="chat-empty-hint">{hasModel ? t('pages.chatEmpty') : t('chat.pickModelFirst')}</p>
        )}
        {!hasModel && noProviders && (
          <a href="#/settings/providers" className="text-sm text-accent underline" data-testid="chat-add-key">
            {t('chat.addKey')}
          </a>
        )}
        {!hasModel && <KeyStorageNote />}
      </div>
    </div>
  )
}
