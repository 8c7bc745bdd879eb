import { useModelLabel } from '../model-picker'

/**
 * A competing model as the rest of the app names it: the provider's name ("OpenAI", never its
 * id) and the model's display name; the ids are in the tooltip of what holds it.
 */
export function CompetitorName({ providerId, modelId }: { providerId: string; modelId: string }) {
  const label = useModelLabel({ providerId, modelId })
  return (
    <>
      {label.provider && <span className="text-zinc-500">{label.provider} </span>}
      {label.model ?? modelId}
    </>
  )
}
