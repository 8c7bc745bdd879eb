import { statfs } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { DiskSpace } from '../../shared/local/ollama-models'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0'])

/** Whether the server runs on this machine, so our disk is its disk. */
export function isLoopbackUrl(baseUrl: string): boolean {
  try {
    return LOOPBACK.has(new URL(baseUrl).hostname)
  } catch {
    // Not a URL: certainly not this machine.
    return false
  }
}

/** Where a local Ollama keeps its blobs: OLLAMA_MODELS, else ~/.ollama/models, else the home folder. */
export function ollamaModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['OLLAMA_MODELS']
  if (configured && existsSync(configured)) return configured
  const usual = join(homedir(), '.ollama', 'models')
  return existsSync(usual) ? usual : homedir()
}

/** Free space for a local Ollama's models; undefined for a remote server (we cannot know). */
export async function ollamaDiskSpace(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<DiskSpace | undefined> {
  if (!isLoopbackUrl(baseUrl)) return undefined
  const path = ollamaModelsDir(env)
  try {
    const stats = await statfs(path)
    return { path, freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize }
  } catch {
    // Documented contract: undefined when we cannot know (the pull shows no free-space figure).
    return undefined
  }
}
