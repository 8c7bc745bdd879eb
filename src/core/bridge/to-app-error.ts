// The bridge uses the one normaliser (src/shared/errors/to-app-error.ts); re-exported for its existing importers.
export { toAppError } from '../../shared/errors/to-app-error'
