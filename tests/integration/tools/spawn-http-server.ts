import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

/** Starts server-everything over HTTP (`streamableHttp` or `sse`) and waits until it listens. */
export async function startEverythingHttp(script: string, mode: 'streamableHttp' | 'sse'): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort()
  const child = spawn(process.execPath, [script, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start`)), 15_000)
    let seen = ''
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (/listening|running on port/i.test(seen)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stderr!.on('data', onData)
    child.stdout!.on('data', () => undefined)
    child.on('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${seen}`)))
  })
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill()
      })
  }
}
