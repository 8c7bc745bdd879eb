import { getModelProperty } from '../../../../shared/catalogue/lookup'
import { logged } from '../../../log/logger'

/**
 * The Azure deployment for a model: the catalogue's `config.deploymentName` (providers.md §3),
 * else the model id itself (users name deployments after models by default).
 */
export async function azureDeploymentName(model: string, provider = 'azure'): Promise<string> {
  // An unreadable catalogue (a broken install) falls back to the model id, and is logged.
  const config = await getModelProperty(model, 'config', provider).catch(logged(provider, 'reading the catalogue for the deployment name'))
  return config?.deploymentName || model
}
