import { readFile } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'

const USAGE = 'switchboard transcribe <provider>/<model> FILE [--language CODE] [--prompt TEXT] [--base-url URL] [--api-key-env VAR] [--json]'

const MIME: Record<string, string> = { '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.m4a': 'audio/mp4', '.mp4': 'audio/mp4', '.ogg': 'audio/ogg', '.webm': 'audio/webm', '.flac': 'audio/flac' }

/** `switchboard transcribe`: speech to text, the text on stdout. */
export const transcribeCommand: CliCommand = {
  name: 'transcribe',
  summary: 'Turn speech (an audio file) into text',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json'], strings: ['base-url', 'api-key-env', 'language', 'prompt'] })
    const { parseTarget, runtimeForCli } = await import('../../core/runtime/key-source')
    const target = parseTarget(positionals[0])
    const file = positionals[1]
    if (!target || !file) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    let audio: Buffer
    try {
      audio = await readFile(file)
    } catch {
      io.stderr.write(`Cannot read ${file}.\n`)
      return 2
    }
    const language = flags.get('language')
    const prompt = flags.get('prompt')
    const runtime = await runtimeForCli(target.providerId, flags, io.env)
    if (!runtime.speechToText) {
      io.stderr.write(`${target.providerId} does not offer speech-to-text.\n`)
      return 2
    }
    const result = await runtime.speechToText({
      model: target.model,
      audio: new Uint8Array(audio),
      fileName: basename(file),
      mimeType: MIME[extname(file).toLowerCase()],
      ...(typeof language === 'string' ? { language } : {}),
      ...(typeof prompt === 'string' ? { prompt } : {})
    })
    io.stdout.write(flags.get('json') === true ? `${JSON.stringify(result)}\n` : `${result.text}\n`)
    return 0
  }
}
