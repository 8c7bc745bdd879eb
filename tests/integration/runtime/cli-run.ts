import { Readable, Writable } from 'node:stream'
import { main } from '../../../src/cli/main'
import type { CliIO } from '../../../src/cli/command'
import { SECRET } from './helpers'

class Capture extends Writable {
  text = ''
  isTTY = false
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString()
    done()
  }
}

/** The CLI run in process, its output captured; `stdin` given is piped, else stdin is a terminal. */
export async function cli(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture()
  const stderr = new Capture()
  const input = Object.assign(Readable.from(stdin ? [Buffer.from(stdin)] : []), { isTTY: stdin ? false : true })
  // HOME-less env: no keychain is reachable, so a missing key stays missing.
  const io: CliIO = { stdout, stderr, stdin: input, env: { OPENAI_API_KEY: SECRET, ...env } }
  const code = await main(args, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}
