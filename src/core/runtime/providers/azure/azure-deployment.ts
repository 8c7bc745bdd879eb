import { getModelProperty } from '../../../../shared/catalogue/lookup'

/**
 * The Azure deployment for a model: the catalogue's `config.deploymentName` (providers.md §3),
 * else the model id itself (users name deployments after models by default).
 */
export async function azureDeploymentName(model: string, provider = 'azure'): Promise<string> {
  const config = await getModelProperty(model, 'config', provider).catch(() => undefined)
  return config?.deploymentName || model
}
