import { describe, expect, it } from 'vitest'
import { chosenPath, fileDialogOptions } from '../../../src/main/policy/file-dialog'

// The desktop's file dialogs for import and export (issue 13): the policy, without Electron.
describe('file dialog policy', () => {
  it('an export proposes a dated .json name in the folder and asks before replacing; an import opens one JSON file', () => {
    const save = fileDialogOptions('export', '/home/u/Documents', 'switchboard-export-2026-11-23.json')
    expect(save.defaultPath).toBe('/home/u/Documents/switchboard-export-2026-11-23.json')
    expect(save.filters[0]).toEqual({ name: 'Switchboard export', extensions: ['json'] })
    expect(save.properties).toContain('showOverwriteConfirmation')
    const open = fileDialogOptions('import', '/home/u/Documents', 'unused.json')
    expect(open.defaultPath).toBe('/home/u/Documents')
    expect(open.properties).toEqual(['openFile'])
    expect(open.properties).not.toContain('multiSelections')
  })

  it('a cancelled dialog chooses nothing', () => {
    expect(chosenPath('export', { canceled: true, filePath: '/tmp/x.json' })).toBeUndefined()
    expect(chosenPath('import', { canceled: true, filePaths: ['/tmp/x.json'] })).toBeUndefined()
    expect(chosenPath('import', { canceled: false, filePaths: [] })).toBeUndefined()
    expect(chosenPath('export', { canceled: false, filePath: '' })).toBeUndefined()
  })

  it('an export without the .json ending gets it (the export writes only new .json files); any case of .json is kept', () => {
    expect(chosenPath('export', { canceled: false, filePath: '/tmp/backup' })).toBe('/tmp/backup.json')
    expect(chosenPath('export', { canceled: false, filePath: '/tmp/Backup.JSON' })).toBe('/tmp/Backup.JSON')
    expect(chosenPath('import', { canceled: false, filePaths: ['/tmp/old-export.txt', '/tmp/other'] })).toBe('/tmp/old-export.txt')
  })

  it('only an absolute path without NUL passes', () => {
    expect(chosenPath('export', { canceled: false, filePath: 'relative/x.json' })).toBeUndefined()
    expect(chosenPath('import', { canceled: false, filePaths: ['x.json'] })).toBeUndefined()
    expect(chosenPath('import', { canceled: false, filePaths: ['/tmp/a\0b.json'] })).toBeUndefined()
  })
})
