/**
 * The ceiling of `npm run bench:http`: a bare node:http server that answers each path with the
 * bytes the service sent for it, from memory. Usage: <bodies.json> <port>, the file mapping each
 * path to its body; any other page of a list it was given is answered with page 0's body.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [file, port] = process.argv.slice(2);
const bodies = new Map(
  Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>).map(([path, body]) => [
    path,
    Buffer.from(body),
  ]),
);

createServer((req, res) => {
  // A list page it was not given (the pages read in turn) gets page 0's bytes: the same size.
  const body = bodies.get(req.url ?? '') ?? bodies.get((req.url ?? '').replace(/([?&]page=)\d+/, '$10'));
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => process.send?.('listening'));
