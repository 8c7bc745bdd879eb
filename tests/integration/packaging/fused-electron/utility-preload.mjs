// Loaded first in a utility process the stand-in's utilityProcess.fork starts (a real Node child).
import { EventEmitter } from 'node:events'
import './hooks.mjs'

const send = process.send.bind(process)
const parentPort = new EventEmitter()
parentPort.postMessage = (message) => send(message)
process.on('message', (message) => parentPort.emit('message', { data: message }))
// Electron ends a utility process with its parent.
process.on('disconnect', () => process.exit(0))
Object.defineProperty(process, 'parentPort', { value: parentPort, enumerable: true })
delete process.send
process.execPath = process.env['STAND_IN_EXE']
process.execArgv = []
Object.defineProperty(process, 'type', { value: 'utility', enumerable: true })
Object.defineProperty(process.versions, 'electron', { value: '45.0.0', enumerable: true })
