import { Component, type ReactNode } from 'react'
import { ErrorPage } from './error-pages'

/** Catches render errors of one page so the rest of the app keeps working. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, { error?: Error }> {
  override state: { error?: Error } = {}

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  override componentDidUpdate(prev: { resetKey?: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined })
  }

  override render() {
    if (this.state.error) return <ErrorPage detail={this.state.error.message} onHome={() => this.setState({ error: undefined })} />
    return this.props.children
  }
}
