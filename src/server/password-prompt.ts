import { createInterface } from 'node:readline'

/**
 * Reads the access password from standard input without echoing it on a terminal, so it
 * never appears on the command line (`ps`) or in the shell history. On a pipe the first
 * line is the password.
 */
export function promptPassword(question: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  return new Promise((resolve, reject) => {
    const tty = Boolean(input.isTTY)
    const rl = createInterface({ input, output: tty ? output : undefined, terminal: tty })
    if (tty) {
      output.write(question)
      // Swallow echo: readline writes typed characters through _writeToOutput.
      ;(rl as unknown as { _writeToOutput(s: string): void })._writeToOutput = () => undefined
    }
    rl.once('line', (line) => {
      if (tty) output.write('\n')
      resolve(line) // before close(), whose 'close' event would reject first
      rl.close()
    })
    rl.once('close', () => reject(new Error('No password was entered.')))
  })
}
