import type { ImageGeneration } from '../data/image-generation'

export interface PromptGroup {
  prompt: string
  /** Newest first. */
  generations: ImageGeneration[]
  /** Of the newest generation: groups are ordered by it. */
  latestAt: number
}

/** The gallery groups results by prompt (trimmed, exact text), newest group first. */
export function groupByPrompt(generations: readonly ImageGeneration[]): PromptGroup[] {
  const groups = new Map<string, PromptGroup>()
  for (const g of [...generations].sort((a, b) => b.createdAt - a.createdAt)) {
    const key = g.prompt.trim()
    const group = groups.get(key)
    if (group) group.generations.push(g)
    else groups.set(key, { prompt: key, generations: [g], latestAt: g.createdAt })
  }
  return [...groups.values()].sort((a, b) => b.latestAt - a.latestAt)
}

/** A short line describing the parameters a generation used (size or ratio, seed, steps, cfg). */
export function describeParameters(parameters: Record<string, unknown>): string {
  const parts: string[] = []
  if (typeof parameters['size'] === 'string') parts.push(parameters['size'])
  else if (typeof parameters['width'] === 'number' && typeof parameters['height'] === 'number') parts.push(`${parameters['width']}×${parameters['height']}`)
  if (typeof parameters['aspectRatio'] === 'string') parts.push(parameters['aspectRatio'])
  if (typeof parameters['seed'] === 'number') parts.push(`seed ${parameters['seed']}`)
  if (typeof parameters['steps'] === 'number') parts.push(`${parameters['steps']} steps`)
  if (typeof parameters['cfg'] === 'number') parts.push(`cfg ${parameters['cfg']}`)
  return parts.join(' · ')
}
