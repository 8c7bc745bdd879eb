import { writeFile } from 'node:fs/promises'
import type { CliCommand, CliIO } from '../command'
import { parseFlags, readStdin } from '../command'
import type { TextToSpeechRequest } from '../../core/runtime/types'

const USAGE = 'switchboard speak <provider>/<model> --out FILE|- [--voice NAME] [--format mp3|opus|aac|flac|wav|pcm] [--speed N] [--base-url URL] [--api-key-env VAR] [TEXT | -]'
const FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']

/** `switchboard speak`: text to speech, written to a file (or stdout with `--out -`). */
export const speakCommand: CliCommand = {
  name: 'speak',
  summary: 'Turn text into speech (audio file)',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { strings: ['base-url', 'api-key-env', 'out', 'format', 'speed', 'voice'] })
    const { parseTarget, runtimeForCli } = await import('../../core/runtime/key-source')
    const target = parseTarget(positionals[0])
    const out = flags.get('out')
    if (!target || typeof out !== 'string') {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    let text = positionals.slice(1).join(' ')
    if (text === '-' || (!text && io.stdin.isTTY !== true)) text = await readStdin(io.stdin)
    if (!text.trim()) {
      io.stderr.write('Nothing to say: pass the text as an argument or on stdin (-).\n')
      return 2
    }
    const format = flags.get('format') ?? 'mp3'
    if (typeof format !== 'string' || !FORMATS.includes(format)) {
      io.stderr.write(`--format must be one of ${FORMATS.join(', ')}\n`)
      return 2
    }
    const speed = flags.get('speed')
    const voice = flags.get('voice')
    const runtime = await runtimeForCli(target.providerId, flags, io.env)
    if (!runtime.textToSpeech) {
      io.stderr.write(`${target.providerId} does not offer text-to-speech.\n`)
      return 2
    }
    const result = await runtime.textToSpeech({
      model: target.model,
      input: text,
      voice: typeof voice === 'string' ? voice : 'alloy',
      responseFormat: format as TextToSpeechRequest['responseFormat'],
      ...(typeof speed === 'string' ? { speed: Number(speed) } : {})
    })
    if (out === '-') io.stdout.write(Buffer.from(result.audio))
    else {
      await writeFile(out, result.audio)
      io.stderr.write(`${result.audio.length} bytes of ${result.mimeType} written to ${out}\n`)
    }
    return 0
  }
}
