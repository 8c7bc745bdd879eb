import { commands } from './commands/index'
import { UsageError, type CliIO } from './command'
import { APP_VERSION } from '../core/version'

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`switchboard ${APP_VERSION}\n\nUsage: switchboard <command> [options]\n\nCommands:\n`)
    for (const command of commands) io.stdout.write(`  ${command.name.padEnd(12)} ${command.summary}\n`)
    io.stdout.write(`\nRun 'switchboard <command> --help' for a command's options.\n`)
    return name ? 0 : 2
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${APP_VERSION}\n`)
    return 0
  }
  const command = commands.find((c) => c.name === name)
  if (!command) {
    io.stderr.write(`Unknown command '${name}'. Run 'switchboard --help' for the list.\n`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`Usage: ${command.usage}\n`)
    return 0
  }
  try {
    // Inside the app's executable every command that runs the engine (chat, builtin, embed…) starts it the app's way.
    if (io.engineUtilityProcess) (await import('../core/engine')).configureBuiltinEngine({ utilityProcess: io.engineUtilityProcess })
    return await command.run(rest, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`switchboard ${command.name}: ${error.message}\nUsage: ${command.usage}\n`)
      return 2
    }
    // Every command's catalogue errors end here: the type first, so scripts can match on it.
    // Anything else goes through the one normaliser too (same defaults as the bridge: InternalError, redacted).
    // Loaded here, where it is needed: --help and --version do not read the error catalogue.
    const { toAppError } = await import('../shared/errors/to-app-error')
    const appError = toAppError(error)
    io.stderr.write(`error: ${appError.errorType}: ${appError.message}\n`)
    return 1
  }
}

const isEntry = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))
if (isEntry || process.env['SWITCHBOARD_CLI_ENTRY'] === '1') {
  // `switchboard providers | head` closes the pipe early: that is the reader's choice, not a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    throw error
  })
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env })
  process.exitCode = code
}
