import { appProcedures } from './procedures/app'
import { dataProcedures } from './procedures/data'
import { localProcedures } from './procedures/local'
import { chatProcedures } from './procedures/chat'
import { providerProcedures } from './procedures/providers'
import { speechProcedures } from './procedures/speech'
import { fileProcedures } from './procedures/files'
import { imageProcedures } from './procedures/images'
import { toolProcedures } from './procedures/tools'
import { knowledgeProcedures } from './procedures/knowledge'
import { taskProcedures } from './procedures/tasks'
import { competitionProcedures } from './procedures/competition'
import { updateProcedures } from './procedures/updates'
import { localApiProcedures } from './procedures/local-api'
import { modelsLibraryProcedures } from './procedures/models-library'
import { engineProcedures } from './procedures/engine'
import { syncProcedures } from './procedures/sync'

/**
 * Every procedure the renderer (or the CLI, or a test) can reach, declared once.
 * Each feature declares its procedures in procedures/<feature>.ts and is spread in here
 * (one line per feature; keep the order).
 */
export const contract = {
  ...appProcedures,
  ...localProcedures,
  ...providerProcedures,
  ...chatProcedures,
  ...speechProcedures,
  ...fileProcedures,
  ...imageProcedures,
  ...toolProcedures,
  ...knowledgeProcedures,
  ...taskProcedures,
  ...competitionProcedures,
  ...updateProcedures,
  ...localApiProcedures,
  ...modelsLibraryProcedures,
  ...engineProcedures,
  ...syncProcedures,
  // store:
  ...dataProcedures
} as const

export type Contract = typeof contract
