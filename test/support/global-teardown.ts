import { rm } from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__TEST_POSTGRES__?.destroy();
  // The run's shared folder: whatever embedded cluster a suite put there (see global-setup.ts).
  if (globalThis.__TEST_SHARED_DIR__)
    await rm(globalThis.__TEST_SHARED_DIR__, { recursive: true, force: true });
}
