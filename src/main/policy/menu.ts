/** A menu item as Electron's Menu.buildFromTemplate takes it (the subset we use). */
export interface MenuItemSpec {
  label?: string
  role?: string
  type?: 'separator'
  accelerator?: string
  id?: string
  submenu?: MenuItemSpec[]
}

/** The application menu with the usual roles; `platform` decides the macOS app menu. */
export function buildMenuTemplate(platform: string, appName = 'Switchboard'): MenuItemSpec[] {
  const mac = platform === 'darwin'
  const sep: MenuItemSpec = { type: 'separator' }
  return [
    ...(mac
      ? [
          {
            label: appName,
            submenu: [{ role: 'about' }, sep, { role: 'services' }, sep, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, sep, { role: 'quit' }]
          }
        ]
      : []),
    {
      label: 'File',
      submenu: [{ id: 'new-chat', label: 'New Chat', accelerator: 'CmdOrCtrl+N' }, sep, mac ? { role: 'close' } : { role: 'quit' }]
    },
    {
      label: 'Edit',
      submenu: [{ role: 'undo' }, { role: 'redo' }, sep, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'pasteAndMatchStyle' }, { role: 'delete' }, { role: 'selectAll' }]
    },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, sep, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, sep, { role: 'togglefullscreen' }]
    },
    { label: 'Window', submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, sep, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }] },
    { role: 'help', submenu: [{ role: 'about' }] }
  ]
}
