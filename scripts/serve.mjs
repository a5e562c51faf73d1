// npm start: serve dist/ on localhost and print the URL.
import { startServer } from './server.mjs';

const port = Number(process.env.PORT) || 8080;
const { url } = await startServer({ port, host: '127.0.0.1' });
console.log(`willitfit is running at ${url}`);
console.log('Press Ctrl+C to stop.');
