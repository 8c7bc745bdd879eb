/**
 * The lines a coding agent needs to use the local API, exactly as the Local API page shows them;
 * tests/integration/gateway/agents-compat.test.ts runs the real agents with these very lines.
 */
export function agentSetup(base: string, key: string, model: string): Array<{ id: 'claude-code' | 'codex'; label: string; code: string }> {
  return [
    {
      // Claude Code speaks Anthropic's API at the root (it adds /v1 itself); the model is any provider/model here.
      id: 'claude-code',
      label: 'Claude Code',
      code: `export ANTHROPIC_BASE_URL=${base}\nexport ANTHROPIC_API_KEY=${key}\nexport ANTHROPIC_MODEL=${model}\nexport ANTHROPIC_SMALL_FAST_MODEL=${model}\nclaude`
    },
    {
      // Codex takes a custom provider in ~/.codex/config.toml; the key comes from the variable it names.
      id: 'codex',
      label: 'Codex CLI (~/.codex/config.toml)',
      code: `model = "${model}"\nmodel_provider = "switchboard"\n\n[model_providers.switchboard]\nname = "Switchboard"\nbase_url = "${base}/v1"\nenv_key = "SWITCHBOARD_API_KEY"\nwire_api = "responses"\n\n# then: export SWITCHBOARD_API_KEY=${key} && codex`
    }
  ]
}
