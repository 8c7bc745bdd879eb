import { lstat, realpath } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { DownloadError } from './file-download'

/**
 * The one check on every path the library writes that a hub, a registry or a saved record
 * named (zip-slip: a file name such as `a/../../../x.gguf` must never leave its folder).
 */

/** A name as the source spelt it, control characters escaped, for error messages. */
const shown = (name: string) => JSON.stringify(name)

const refused = (name: string, why: string) => new DownloadError(`The file name ${shown(name)} was refused: ${why}. Nothing was downloaded.`, 'refused')

/**
 * `root` joined with a relative name from a hub or registry (`/`-separated), refused unless
 * every segment is a plain name: no `..` or `.`, no empty segment, no absolute path, no
 * backslash (a separator on Windows), no NUL or other control character. The result is then
 * checked to resolve inside `root`.
 */
export function pathInside(root: string, name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw refused(String(name), 'it is empty')
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw refused(name, 'it holds a control character')
  if (name.includes('\\')) throw refused(name, 'it holds a backslash')
  if (name.startsWith('/') || isAbsolute(name) || /^[A-Za-z]:/.test(name)) throw refused(name, 'it is an absolute path')
  const segments = name.split('/')
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw refused(name, 'it climbs out of its folder (a "..", "." or empty part)')
  const path = join(root, ...segments)
  if (!isWithin(resolve(root), resolve(path))) throw refused(name, 'it resolves outside its folder')
  return path
}

const isWithin = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)
}

/**
 * Checks, right before writing, that `path` (and its download companions) stays inside `root`
 * on disk: lexically, through the real path of its nearest existing parent (a link planted
 * inside the models folder that points elsewhere is caught), and that the file itself and its
 * `.part` / `.part.json` are not links. Throws a DownloadError naming the file otherwise.
 */
export async function checkWritable(root: string, path: string, companions: readonly string[] = []): Promise<void> {
  const outside = () => new DownloadError(`Writing ${path} was refused: it is outside the models folder (${root}). Nothing was written there.`, 'refused')
  if (!isAbsolute(path) || !isWithin(resolve(root), resolve(path))) throw outside()
  const realRoot = await realpath(root).catch(() => resolve(root))
  let parent = dirname(resolve(path))
  for (;;) {
    const real = await realpath(parent).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
      throw error
    })
    if (real !== undefined) {
      if (real !== realRoot && !isWithin(realRoot, real)) throw outside()
      break
    }
    // Not there yet: the folders to be made sit under the nearest one that is.
    const up = dirname(parent)
    if (up === parent) break
    parent = up
  }
  for (const file of [path, ...companions]) {
    const info = await lstat(file).catch(() => undefined)
    if (info?.isSymbolicLink()) throw new DownloadError(`Writing ${file} was refused: it is a link, which could point outside the models folder (${root}). Remove it, then try again.`, 'refused')
  }
}
