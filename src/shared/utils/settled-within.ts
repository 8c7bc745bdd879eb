/**
 * Whether `promise` settles (either way) within `ms`: the wait before a restore gives up on a
 * round or a reply that does not end. Only the waiting stops; the work goes on, and the timer
 * is cleared once either side is done.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true
      ),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
    ])
  } finally {
    clearTimeout(timer)
  }
}
