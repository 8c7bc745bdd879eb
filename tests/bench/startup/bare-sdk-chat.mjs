// The baseline of the startup bench's `chat --json` figure: the bare `openai` SDK in its own
// process, streaming the same reply and printing one JSON line per text chunk (what
// `switchboard chat --json` prints), buffered the same way. Usage: node bare-sdk-chat.mjs BASE_URL
import OpenAI from 'openai'

const sdk = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.argv[2], maxRetries: 0 })
const stream = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'go' }], stream: true, stream_options: { include_usage: true } })
let out = ''
for await (const chunk of stream) {
  const piece = chunk.choices[0]?.delta?.content
  if (!piece) continue
  out += `${JSON.stringify({ type: 'text', data: piece })}\n`
  if (out.length >= 64 * 1024) {
    process.stdout.write(out)
    out = ''
  }
}
process.stdout.write(out)
