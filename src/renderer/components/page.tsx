import type { ReactNode } from 'react'

export function Page({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <section className="flex h-full flex-col" data-testid={testId}>
      <header className="flex h-14 shrink-0 items-center border-b border-zinc-200 px-6 dark:border-zinc-800">
        <h1 className="text-base font-semibold">{title}</h1>
      </header>
      <div className="min-h-0 flex-1 overflow-auto p-6">{children}</div>
    </section>
  )
}
