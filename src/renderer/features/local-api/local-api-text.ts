// Pure text helpers of Settings → Local API (tested without a page).
import { agentSetup } from '../../../shared/local-api/agent-setup'
import type { CodingAgent } from '../../../shared/bridge/procedures/local-api'

export function examples(base: string, key: string, model: string): Array<{ id: string; label: string; code: string }> {
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${base}/v1/chat/completions \\\n  -H "Authorization: Bearer ${key}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`
    },
    {
      id: 'python',
      label: 'Python (openai)',
      code: `from openai import OpenAI\n\nclient = OpenAI(base_url="${base}/v1", api_key="${key}")\nreply = client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "Hello"}])\nprint(reply.choices[0].message.content)`
    },
    {
      id: 'js',
      label: 'JavaScript (openai)',
      code: `import OpenAI from 'openai'\n\nconst client = new OpenAI({ baseURL: '${base}/v1', apiKey: '${key}' })\nconst reply = await client.chat.completions.create({ model: '${model}', messages: [{ role: 'user', content: 'Hello' }] })\nconsole.log(reply.choices[0].message.content)`
    },
    {
      id: 'editor',
      label: 'Editor / Anthropic clients',
      code: `OpenAI-compatible: base URL ${base}/v1, API key ${key}, model ${model}\nAnthropic-compatible: ANTHROPIC_BASE_URL=${base} ANTHROPIC_API_KEY=${key}`
    }
  ]
}

/** The lines per coding agent, in the order the page offers them with a "Test" button each. */
export function agentExamples(base: string, key: string, model: string): Array<{ id: CodingAgent; label: string; code: string }> {
  return [
    ...agentSetup(base, key, model),
    { id: 'openai', label: 'Any OpenAI client', code: `base URL: ${base}/v1\nAPI key:  ${key}\nmodel:    ${model}` }
  ]
}

/** `name = provider/model` per line; a line that is not is named in the error. */
export function parseAliases(text: string): Record<string, string> | string {
  const out: Record<string, string> = {}
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim()
    if (!line) continue
    const match = /^([^=\s]+)\s*=\s*(\S+\/\S+)$/.exec(line)
    if (!match) return `Line ${i + 1}: write an alias as "name = provider/model".`
    out[match[1]!] = match[2]!
  }
  return out
}
