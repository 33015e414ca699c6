// The ceiling: a bare Fastify server that answers every benchmark request with the exact response bytes the
// real service gave for it, from memory (no GraphQL, no database). Started as its own process like the
// services. The suite loads the recorded answers with POST /__load (a JSON file path), then measures:
//   POST /graphql  -> the answer recorded for that exact request body;
//   GET  /restful/* -> the answer recorded for that exact URL.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const answers = new Map<string, Buffer>();
const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });

// The body is only a lookup key, so it is kept as the raw string instead of being parsed.
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
  done(null, body),
);

app.post<{ Body: { file: string } | string }>('/__load', async (request) => {
  const { file } = JSON.parse(request.body as string) as { file: string };
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as { key: string; body: string }[];
  for (const { key, body } of recorded) answers.set(key, Buffer.from(body));
  return { loaded: answers.size };
});

app.get('/health', async () => ({ status: 'ok' }));

function reply(key: string, send: (payload: Buffer) => void, notFound: () => void): void {
  const answer = answers.get(key);
  if (answer) send(answer);
  else notFound();
}

app.post('/graphql', (request, response) => {
  reply(
    request.body as string,
    (payload) => void response.header('content-type', 'application/json; charset=utf-8').send(payload),
    () => void response.code(404).send({ error: 'no recorded answer for this body' }),
  );
});

app.get('/restful/*', (request, response) => {
  reply(
    request.url,
    (payload) => void response.header('content-type', 'application/json; charset=utf-8').send(payload),
    () => void response.code(404).send({ error: 'no recorded answer for this URL' }),
  );
});

const port = Number(process.env.PORT ?? 4099);
app.listen({ port, host: process.env.HOST ?? '127.0.0.1' }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
