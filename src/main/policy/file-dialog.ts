import { isAbsolute, join } from 'node:path'

/** What the Data page asks the desktop for: a file to import, or where to write an export. */
export type FilePurpose = 'import' | 'export'

/** The subset of Electron's open/save dialog options we set (kept plain so this stays testable without Electron). */
export interface FileDialogOptions {
  title: string
  defaultPath?: string
  buttonLabel?: string
  filters: Array<{ name: string; extensions: string[] }>
  properties: string[]
}

/** Electron's answer, from either dialog. */
export interface FileDialogResult {
  canceled: boolean
  filePath?: string
  filePaths?: string[]
}

const JSON_FILTER = { name: 'Switchboard export', extensions: ['json'] }

/**
 * The dialog for a purpose: an export proposes a dated name in `folder` (Documents) and asks
 * before replacing a file; an import opens one JSON file. The main process shows it, attached
 * to the window that asked, so the renderer never names a path itself.
 */
export function fileDialogOptions(purpose: FilePurpose, folder: string, suggestedName: string): FileDialogOptions {
  if (purpose === 'export') {
    return {
      title: 'Export your data',
      defaultPath: join(folder, suggestedName),
      buttonLabel: 'Export',
      filters: [JSON_FILTER],
      properties: ['createDirectory', 'showOverwriteConfirmation']
    }
  }
  return {
    title: 'Import data',
    defaultPath: folder,
    buttonLabel: 'Import',
    filters: [JSON_FILTER, { name: 'All files', extensions: ['*'] }],
    properties: ['openFile']
  }
}

/**
 * The path the user chose, or undefined when they cancelled. An export's name gets `.json`
 * when the user typed none (Linux dialogs do not add it), since the export procedure writes
 * only new `.json` files. Only absolute paths pass: anything else is not what a dialog returns.
 */
export function chosenPath(purpose: FilePurpose, result: FileDialogResult): string | undefined {
  if (result.canceled) return undefined
  const path = purpose === 'export' ? result.filePath : result.filePaths?.[0]
  if (!path || !isAbsolute(path) || path.includes('\0')) return undefined
  if (purpose === 'export' && !path.toLowerCase().endsWith('.json')) return `${path}.json`
  return path
}
