import { useTranslation } from 'react-i18next'
import { artifactTypeForCodeBlock } from '../../../shared/artifacts/artifact-kinds'
import { artifactActions } from './artifact-store'

const hash = (text: string) => {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0
  return (h >>> 0).toString(36)
}

/** "Open as artifact" for fenced html / svg / mermaid blocks and whole HTML documents. */
export function OpenAsArtifact({ language, code, className }: { language?: string; code: string; className?: string }) {
  const { t } = useTranslation()
  const type = artifactTypeForCodeBlock(language, code)
  if (!type) return null
  return (
    <button
      type="button"
      className={className}
      onClick={() => artifactActions.openBlock({ key: `${type}-${code.length}-${hash(code)}`, type, title: t(`artifacts.types.${type}`), content: code })}
      data-testid="open-as-artifact"
    >
      {t('artifacts.openAsArtifact')}
    </button>
  )
}
