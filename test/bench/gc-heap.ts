// The heap of a bench worker run with --expose-gc, read after full collections with turns of the
// event loop between them: what a FinalizationRegistry frees (the listeners undici ties to each
// Request's signal) is freed only in a later task.
export async function heapAfterCollections(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the bench worker with --expose-gc');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  gc();
  return process.memoryUsage().heapUsed;
}
