import { useCallback, useEffect, useState } from 'react'
import { bridge } from '../../stores/app-store'

/** A local model's context length (Ollama num_ctx) from Settings (`contextLengths`, keyed provider/model). */
export function useContextLength(providerId: string | undefined, modelId: string | undefined) {
  const key = providerId && modelId ? `${providerId}/${modelId}` : undefined
  const [all, setAll] = useState<Record<string, number>>({})
  useEffect(() => {
    if (!key) return
    void bridge()
      .call('data.settings.get', {})
      .then((r) => {
        const value = r.ok ? r.value['contextLengths'] : undefined
        if (value && typeof value === 'object' && !Array.isArray(value)) setAll(value as Record<string, number>)
      })
  }, [key])
  const save = useCallback(
    (value: number | undefined) => {
      if (!key) return
      const next = { ...all }
      if (value === undefined) delete next[key]
      else next[key] = value
      setAll(next)
      void bridge().call('data.settings.set', { patch: { contextLengths: next } })
    },
    [all, key]
  )
  return { value: key ? all[key] : undefined, save }
}
