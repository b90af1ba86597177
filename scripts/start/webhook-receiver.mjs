// The demo's webhook receiver: where the demo account's webhook endpoint points, so a newcomer sees outbound events
// arrive (in the console's Webhooks page, and here). It verifies every delivery's signature with the standardwebhooks
// package, as a customer's receiver would, answers 204 when it verifies and 401 when not, and keeps the last
// deliveries in memory: GET / shows them (a page in a browser, JSON otherwise). DEMO_WEBHOOK_RECEIVER=false leaves
// it out; DEMO_WEBHOOK_RECEIVER_PORT (4030) picks the port, any free one if taken.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { die, say } from './output.mjs';

export const webhookReceiverWanted = (env) => !/^(false|0|no)$/i.test(env.DEMO_WEBHOOK_RECEIVER?.trim() ?? '');

/** Where deliveries are POSTed on the receiver. */
export const RECEIVER_PATH = '/webhooks';
/** How many deliveries GET / shows, newest first. */
export const KEPT_DELIVERIES = 100;
/** The description that marks the demo account's endpoint, so each start finds the one it made. */
export const DEMO_ENDPOINT_DESCRIPTION = 'Demo receiver run by npm start';

const MAX_BODY_BYTES = 1024 * 1024;

function receiverPort(env) {
  const raw = env.DEMO_WEBHOOK_RECEIVER_PORT?.trim();
  if (!raw) return 4030;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) die(`DEMO_WEBHOOK_RECEIVER_PORT must be a port number (0–65535), got "${raw}"`);
  return n;
}

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(deliveries, url) {
  const rows = deliveries
    .map((d) => `<tr><td>${escapeHtml(d.received_at)}</td><td>${escapeHtml(d.type ?? '—')}</td><td>${d.verified ? 'verified' : `refused: ${escapeHtml(d.problem)}`}</td><td><code>${escapeHtml(d.webhook_id ?? '—')}</code></td><td><code>${escapeHtml(d.summary)}</code></td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Demo webhook receiver</title></head>
<body><h1>Demo webhook receiver</h1>
<p>The last ${KEPT_DELIVERIES} deliveries to this receiver, newest first, each signature checked with the standardwebhooks package. Reload for new ones; as JSON: <code>curl ${escapeHtml(url)}/</code>.</p>
<table border="1" cellpadding="4"><thead><tr><th>Received</th><th>Event</th><th>Signature</th><th>webhook-id</th><th>Data</th></tr></thead><tbody>
${rows || '<tr><td colspan="5">Nothing yet.</td></tr>'}
</tbody></table></body></html>
`;
}

/**
 * `secretOf()` reads the endpoint's current secret (through the API); it is asked again when a signature does not
 * verify, so a secret rotated in the console is picked up at once (at most every `secretRefreshMs`).
 */
export async function startWebhookReceiver(env, { secretRefreshMs = 5000 } = {}) {
  const deliveries = [];
  let url = '';
  let webhook;
  let secretOf = async () => undefined;
  let refreshing;
  let refreshedAt = 0;
  // At most one read of the secret every few seconds, however many unverifiable requests come.
  const refreshSecret = () => {
    if (Date.now() - refreshedAt < secretRefreshMs) return refreshing ?? Promise.resolve();
    refreshedAt = Date.now();
    return (refreshing ??= secretOf()
      .then((secret) => {
        if (secret) webhook = new Webhook(secret);
      })
      .catch((err) => say(`the demo webhook receiver could not read its endpoint's secret: ${err.message}`))
      .finally(() => (refreshing = undefined)));
  };
  const verify = async (body, headers) => {
    for (let tries = 0; tries < 2; tries++) {
      try {
        if (!webhook) throw new Error('no secret yet');
        return { event: webhook.verify(body, headers) };
      } catch (err) {
        if (tries === 0) await refreshSecret();
        else return { problem: err.message };
      }
    }
    return { problem: 'unverified' };
  };
  const receive = async (req, res) => {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const { event, problem } = await verify(body, req.headers);
    let parsed = event;
    if (!parsed) {
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
    }
    deliveries.unshift({
      received_at: new Date().toISOString(),
      webhook_id: req.headers['webhook-id'] ?? null,
      type: parsed?.type ?? null,
      verified: Boolean(event),
      ...(problem ? { problem } : {}),
      summary: JSON.stringify(parsed?.data ?? body).slice(0, 200),
    });
    deliveries.length = Math.min(deliveries.length, KEPT_DELIVERIES);
    res.writeHead(event ? 204 : 401).end();
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (req.method === 'POST' && path === RECEIVER_PATH) {
      receive(req, res).catch(() => res.writeHead(500).end());
    } else if (req.method === 'GET' && path === '/') {
      const html = /text\/html/.test(req.headers.accept ?? '');
      res.writeHead(200, { 'content-type': html ? 'text/html; charset=utf-8' : 'application/json', 'cache-control': 'no-store' });
      res.end(html ? page(deliveries, url) : `${JSON.stringify({ deliveries }, null, 2)}\n`);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`POST ${RECEIVER_PATH} (Standard Webhooks), GET / for what arrived\n`);
    }
  });
  const listen = (port) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const port = receiverPort(env);
  await listen(port).catch(async (err) => {
    if (err.code !== 'EADDRINUSE') throw err;
    say(`webhook receiver port ${port} is taken: it uses a free port instead`);
    await listen(0);
  });
  url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    endpointUrl: `${url}${RECEIVER_PATH}`,
    /** Where the receiver reads the endpoint's secret from (set once the demo endpoint exists). */
    useSecretSource(source) {
      secretOf = source;
      refreshedAt = 0;
      return refreshSecret();
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function api(baseUrl, apiKey, method, path, body) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const json = res.status === 204 ? undefined : await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${json?.error?.message ?? ''}`.trim());
  return json;
}

/**
 * The demo account's endpoint pointing at the receiver, made through the public API like the rest of the demo: the
 * one marked with DEMO_ENDPOINT_DESCRIPTION is kept (its URL moved to where the receiver listens now), else one is
 * created. The receiver then reads its secret through the API.
 */
export async function ensureDemoEndpoint({ baseUrl, apiKey, receiver }) {
  const listed = await api(baseUrl, apiKey, 'GET', '/v1/webhook-endpoints?per_page=100');
  let endpoint = listed.data.find((e) => e.description === DEMO_ENDPOINT_DESCRIPTION);
  if (!endpoint) {
    endpoint = (await api(baseUrl, apiKey, 'POST', '/v1/webhook-endpoints', { url: receiver.endpointUrl, description: DEMO_ENDPOINT_DESCRIPTION })).data;
  } else if (endpoint.url !== receiver.endpointUrl) {
    endpoint = (await api(baseUrl, apiKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { url: receiver.endpointUrl })).data;
  }
  await receiver.useSecretSource(async () => (await api(baseUrl, apiKey, 'GET', `/v1/webhook-endpoints/${endpoint.id}/secret`)).data.secret);
  return endpoint;
}
