// Entry point of `npm run cli -- projections rebuild conversations`: the rebuild itself lives in
// conversations-service (apps/conversations-service/src/rebuild-projection), built to dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const modulePath = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'conversations-service', 'dist', 'rebuild-projection', 'rebuild-projection.js');

export async function rebuildConversationsProjection(options) {
  if (!existsSync(modulePath)) throw new Error('conversations-service is not built yet: run `npm run build` first');
  const { rebuildConversationsProjection: rebuild } = await import(pathToFileURL(modulePath).href);
  return rebuild(options);
}
