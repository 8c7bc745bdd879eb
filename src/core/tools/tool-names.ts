/**
 * Names models can call: providers accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic, Gemini
 * are the strictest). An MCP tool is offered as `<server>__<tool>`, made unique.
 */
export function exposedToolName(serverName: string, tool: string, taken: ReadonlySet<string>): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '')
  const server = clean(serverName).slice(0, 20) || 'server'
  let name = `${server}__${clean(tool) || 'tool'}`.slice(0, 64)
  for (let n = 2; taken.has(name); n++) name = `${name.slice(0, 60)}_${n}`
  return name
}
