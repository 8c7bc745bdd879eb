import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { extname, join, resolve } from 'node:path'
import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import type { ImageParamValues } from '../../shared/image-params/types'
import { validateImageParams } from '../../shared/image-params/validate'
import { IMAGE_EXTENSIONS, sniffImageMime } from '../../shared/images/image-dimensions'
import { imageUrlToBase64 } from '../../shared/utils/image-url-to-base64'
import type { ImagePollingOptions } from '../../core/runtime/images/polling'

const USAGE =
  'switchboard image <provider>/<model> [--base-url URL] [--api-key-env VAR] [--size S | --aspect-ratio R | --width W --height H] [--steps N] [--cfg N] [--seed N] [--image FILE]... --out DIR PROMPT'

const NUMERIC = ['width', 'height', 'steps', 'cfg', 'seed'] as const
const MIME_BY_EXT: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' }

/** A file name from the prompt: readable, short, safe on every filesystem. */
const slug = (prompt: string) =>
  prompt
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'image'

async function referenceImage(path: string): Promise<string> {
  const bytes = await readFile(path)
  const mime = sniffImageMime(bytes) ?? MIME_BY_EXT[extname(path).toLowerCase()]
  if (!mime) throw new Error(`${path} is not a PNG, JPEG, WebP or GIF image`)
  return `data:${mime};base64,${bytes.toString('base64')}`
}

/**
 * `switchboard image`: one image from a provider's image model, written into --out. The
 * values are checked against the model's parameter schema before any request is made.
 */
export const imageCommand: CliCommand = {
  name: 'image',
  summary: 'Generate an image and write it to a folder',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parseFlags>
    try {
      parsed = parseFlags(args, { strings: ['base-url', 'api-key-env', 'out', 'size', 'aspect-ratio', ...NUMERIC], repeatable: ['image'] })
    } catch (error) {
      io.stderr.write(`${(error as Error).message}\nUsage: ${USAGE}\n`)
      return 2
    }
    const { flags, lists, positionals } = parsed
    const [{ parseTarget, runtimeForCli }, { catalogueImageModel }] = await Promise.all([import('../../core/runtime/key-source'), import('../../core/images/image-service')])
    const target = parseTarget(positionals[0])
    const out = flags.get('out')
    const prompt = positionals.slice(1).join(' ').trim()
    if (!target || typeof out !== 'string' || !prompt) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    if (flags.has('size') && (flags.has('aspect-ratio') || flags.has('width') || flags.has('height'))) {
      io.stderr.write('Give one of --size, --aspect-ratio, or --width with --height.\n')
      return 2
    }

    const values: ImageParamValues = { prompt }
    for (const name of NUMERIC) {
      const raw = flags.get(name)
      if (raw === undefined) continue
      const n = typeof raw === 'string' ? Number(raw) : NaN
      if (!Number.isFinite(n)) {
        io.stderr.write(`--${name} must be a number (got ${JSON.stringify(raw)}).\n`)
        return 2
      }
      values[name] = n
    }
    const size = flags.get('size')
    if (typeof size === 'string') values.size = size
    const ratio = flags.get('aspect-ratio')
    if (typeof ratio === 'string') values.aspectRatio = ratio

    const model = await catalogueImageModel(target.providerId, target.model)
    const images = lists.get('image') ?? []
    if (images.length > 0) {
      let refs: string[]
      try {
        refs = await Promise.all(images.map(referenceImage))
      } catch (error) {
        io.stderr.write(`${(error as Error).message}\n`)
        return 2
      }
      // The schema says whether the model takes one reference (imageUrl) or a list (imageUrls).
      if (model.parameters.imageUrls || !model.parameters.imageUrl) values.imageUrls = refs
      else if (refs.length === 1) values.imageUrl = refs[0]!
      else {
        io.stderr.write(`${target.model} takes one reference image (got ${refs.length}).\n`)
        return 2
      }
    }
    const checked = validateImageParams(model.parameters, values, { providerId: target.providerId })
    if (!checked.ok) {
      io.stderr.write(`Invalid parameters for ${target.providerId}/${target.model}:\n`)
      for (const issue of checked.error.detail.issues) io.stderr.write(`  ${issue.message}\n`)
      return 2
    }
    if (model.viaChat) {
      io.stderr.write(`${target.model} draws images inside a chat reply; use it from the app's Images page.\n`)
      return 2
    }

    const controller = new AbortController()
    const onSigint = () => controller.abort()
    process.once('SIGINT', onSigint)
    try {
      const runtime = await runtimeForCli(target.providerId, flags, io.env)
      if (!runtime.createImage) {
        io.stderr.write(`${target.providerId} does not generate images.\n`)
        return 2
      }
      const polling: ImagePollingOptions = {
        onProgress: (p) => {
          if (p.phase === 'polling') io.stderr.write(`polling attempt ${p.attempt}${p.status ? ` (${p.status})` : ''}\n`)
        }
      }
      const params = checked.value as Parameters<NonNullable<typeof runtime.createImage>>[0]['params']
      if (!params.imageUrl) delete params.imageUrl
      if (params.imageUrls?.length === 0) delete params.imageUrls
      const result = await runtime.createImage({ model: target.model, params }, { signal: controller.signal, imagePolling: polling })
      const { base64, mimeType } = await imageUrlToBase64(result.imageUrl, globalThis.fetch, controller.signal)
      const bytes = Buffer.from(base64, 'base64')
      const mime = sniffImageMime(bytes) ?? mimeType
      await mkdir(out, { recursive: true })
      const file = resolve(join(out, `${slug(prompt)}-${Date.now()}.${IMAGE_EXTENSIONS[mime] ?? 'bin'}`))
      await writeFile(file, bytes)
      io.stdout.write(`${file}\n`)
      return 0
    } finally {
      process.removeListener('SIGINT', onSigint)
    }
  }
}
