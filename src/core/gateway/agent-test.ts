import type { AgentTestResult, CodingAgent } from '../../shared/bridge/procedures/local-api'

const PROMPT = 'Reply with one short sentence: say hi.'
/** Long enough for any answer's first words, short enough to cost next to nothing. */
const MAX_TOKENS = 64
// A first call may load a local model.
const TIMEOUT_MS = 120_000
const SHOWN_TEXT = 400

interface Shaped {
  path: string
  headers: Record<string, string>
  body: unknown
  stream: boolean
}

/**
 * Each agent's own first request, in the shape it sends it: Claude Code's Messages stream with its
 * system blocks, a system turn after the first message (its per-turn environment note), adaptive
 * thinking and a tool; Codex's Responses stream with a function beside the `namespace` and
 * `web_search` tools; a plain Chat Completions call for any OpenAI client.
 */
export function agentRequest(agent: CodingAgent, model: string, key: string): Shaped {
  if (agent === 'claude-code')
    return {
      path: '/v1/messages',
      stream: true,
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
      body: {
        model,
        // Adaptive thinking takes part of the budget before any text.
        max_tokens: MAX_TOKENS * 4,
        stream: true,
        system: [
          { type: 'text', text: 'You are Claude Code, an interactive CLI tool.' },
          { type: 'text', text: 'Answer briefly.', cache_control: { type: 'ephemeral' } }
        ],
        thinking: { type: 'adaptive' },
        tools: [{ name: 'Read', description: 'Reads a file from the local filesystem.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: PROMPT }] },
          { role: 'system', content: 'Working directory: /tmp. Platform: linux.' }
        ]
      }
    }
  if (agent === 'codex')
    return {
      path: '/v1/responses',
      stream: true,
      headers: { authorization: `Bearer ${key}` },
      body: {
        model,
        stream: true,
        store: false,
        max_output_tokens: MAX_TOKENS,
        instructions: 'You are Codex, a coding agent.',
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] }],
        tools: [
          { type: 'function', name: 'shell', description: 'Runs a shell command.', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
          { type: 'namespace', name: 'mcp', tools: [] },
          { type: 'web_search' }
        ],
        tool_choice: 'auto',
        parallel_tool_calls: false
      }
    }
  return {
    path: '/v1/chat/completions',
    stream: false,
    headers: { authorization: `Bearer ${key}` },
    body: { model, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: PROMPT }] }
  }
}

/** What to do about a failed test, by the status the gateway answered with. */
function fixFor(status: number): string {
  if (status === 401 || status === 403) return 'The local API refused the test key: check its allowed hosts and origins in this section.'
  if (status === 404) return 'Pick a model the local API lists (GET /v1/models): a provider with a key and the model enabled, or a model on the Local models page.'
  if (status === 429) return 'A rate limit or spend cap was reached: wait, or raise the limit.'
  if (status === 413 || status === 400) return 'The model or its provider cannot take this request: try another model.'
  return 'Check the provider in Settings → Providers (its key and address), then test again.'
}

/** The text an answer carries, by the wire it came on (streamed events or one JSON object). */
function textOf(agent: CodingAgent, event: Record<string, unknown>): string {
  if (agent === 'claude-code') {
    const delta = event['delta'] as { type?: string; text?: string } | undefined
    return event['type'] === 'content_block_delta' && delta?.type === 'text_delta' ? (delta.text ?? '') : ''
  }
  if (agent === 'codex') return event['type'] === 'response.output_text.delta' ? String(event['delta'] ?? '') : ''
  const choices = event['choices'] as Array<{ message?: { content?: string | null } }> | undefined
  return choices?.[0]?.message?.content ?? ''
}

/** An error the stream carried after its headers (either API's shape), or undefined. */
function streamError(event: Record<string, unknown>): string | undefined {
  if (event['type'] === 'error' || event['type'] === 'response.failed') {
    const error = (event['error'] ?? (event['response'] as Record<string, unknown> | undefined)?.['error']) as { message?: string } | undefined
    return error?.message ?? 'The stream ended with an error.'
  }
  return undefined
}

const errorMessage = (text: string): string => {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } }
    return parsed.error?.message ?? text
  } catch {
    return text.slice(0, SHOWN_TEXT)
  }
}

/**
 * Sends an agent's first request to the running local API at `base` with `key` and reads the
 * answer as the agent would: the text, the warnings header, or the error with what to do.
 */
export async function testAgent(base: string, key: string, agent: CodingAgent, model: string): Promise<AgentTestResult> {
  const shaped = agentRequest(agent, model, key)
  const started = Date.now()
  let response: Response
  try {
    response = await fetch(`${base}${shaped.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...shaped.headers },
      body: JSON.stringify(shaped.body),
      signal: AbortSignal.timeout(TIMEOUT_MS)
    })
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { ok: false, message: `No answer within ${TIMEOUT_MS / 1000} s.`, fix: 'The model may still be loading or the provider slow: test again, or try a smaller model.' }
    return { ok: false, message: `The local API did not answer: ${(error as Error).message}`, fix: 'Turn the local API on (above) and test again.' }
  }
  const warning = response.headers.get('x-switchboard-warning') ?? undefined
  const extra = warning ? { warning } : {}
  const body = await response.text().catch((error: Error) => `{"error":{"message":${JSON.stringify(error.message)}}}`)
  if (!response.ok) return { ok: false, status: response.status, message: errorMessage(body), fix: fixFor(response.status), ...extra }
  let text = ''
  const events = shaped.stream
    ? body
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '[DONE]')
        .map((line) => line.slice(5).trim())
    : [body]
  for (const data of events) {
    let event: Record<string, unknown>
    try {
      event = JSON.parse(data) as Record<string, unknown>
    } catch {
      continue
    }
    const failed = streamError(event)
    if (failed) return { ok: false, status: response.status, message: failed, fix: fixFor(502), ...extra }
    text += textOf(agent, event)
  }
  if (!text.trim()) return { ok: false, status: response.status, message: 'The model answered with no text.', fix: 'Try another model: this one gave an empty answer to a short prompt.', ...extra }
  return { ok: true, text: text.slice(0, SHOWN_TEXT), ms: Date.now() - started, ...extra }
}
