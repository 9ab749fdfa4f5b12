// Child process of `npm run bench -- search`: the real server with the search routes attached (see
// api/search/attach.ts; once api/server.ts mounts them, the bench can start api/server.ts instead).
import { loadConfig } from '../../src/lib/config.ts';
import { startServer } from '../../api/server.ts';
import { attachSearch } from '../../api/search/attach.ts';

const config = loadConfig();
const running = await startServer(config, { log: () => {} });
await attachSearch(running, config, { log: (m) => console.error(m) });
console.log(`listening on ${running.url}`);
const stop = () => void running.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
