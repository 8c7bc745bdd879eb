import { create } from 'zustand'

export const ROUTES = ['chat', 'images', 'local-models', 'knowledge', 'usage', 'settings'] as const
export type RouteName = (typeof ROUTES)[number]

export type Route = { name: RouteName; params: string[] } | { name: 'not-found'; path: string }

/** Hash routes (#/chat, #/settings…) work the same under app:// and in browser mode. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/'
  const parts = path.split('/').filter(Boolean)
  if (parts.length === 0) return { name: 'chat', params: [] }
  const [head, ...params] = parts
  return (ROUTES as readonly string[]).includes(head!) ? { name: head as RouteName, params } : { name: 'not-found', path }
}

interface RouterState {
  route: Route
  navigate(path: string): void
}

export const useRouter = create<RouterState>()((set) => ({
  route: parseRoute(location.hash),
  navigate(path) {
    location.hash = path.startsWith('/') ? path : `/${path}`
    set({ route: parseRoute(location.hash) })
  }
}))

window.addEventListener('hashchange', () => useRouter.setState({ route: parseRoute(location.hash) }))
