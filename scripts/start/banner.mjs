// The demo data and the banner: the last thing a start prints, with everything needed to try the service.
import { say, shown } from './output.mjs';

/** The demo account, its agents and calls (SEED_DEMO), pointed at the simulators when they run. */
export async function seedDemo(config, system, simulators, adminToken) {
  if (!config.seedDemo) return {};
  const { seedDemoData } = await import('../seed-demo.mjs');
  const platforms = simulators && {
    platform_a: { api_key: simulators.credentials.apiKey, webhook_secret: simulators.credentials.webhookSecret, base_url: simulators.urls.platformA },
    platform_b: { api_key: simulators.credentials.apiKey, webhook_secret: simulators.credentials.webhookSecret, base_url: simulators.urls.platformB },
  };
  try {
    return { demo: await seedDemoData({ baseUrl: system.url, adminToken, dataDir: config.dataDir, platforms, simulators, log: say }) };
  } catch (err) {
    return { seedProblem: err.message };
  }
}

export function banner({ kit, config, startedAt, system, embedded, databaseUrl, simulators, webhookReceiver, tokenFile, demo, seedProblem, webhookProblem, traffic }) {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const lines = [
    '',
    `Voice agent operations API is up in ${seconds} s — ${system.url}`,
    // The console reads the key from the fragment once (a fragment never reaches a server or its logs) and removes it.
    `  console:   ${system.url}/app${demo ? `#api_key=${encodeURIComponent(demo.apiKey)}` : ''}`,
    `  mode:      ${config.localMode ? 'one process, in-process transport (set NATS_URL for the distributed mode)' : `distributed, over NATS (${kit.redactUrl(config.natsUrl)})`}`,
    `  database:  ${embedded ? `embedded PostgreSQL, data in ${shown(config.dataDir)}/` : kit.redactUrl(databaseUrl)}`,
    `  docs:      ${system.url}/docs   (OpenAPI: ${system.url}/v1/openapi.json)`,
    `  health:    ${system.url}/health`,
  ];
  if (simulators) lines.push(`  platforms: simulated — platform_a ${simulators.urls.platformA}, platform_b ${simulators.urls.platformB} (PLATFORM_SIMULATORS=false to leave out)`);
  if (webhookReceiver) {
    const where = demo && !webhookProblem ? "the demo account's webhook endpoint" : `no endpoint (${webhookProblem ?? 'no demo account'})`;
    lines.push(`  webhooks:  demo receiver ${webhookReceiver.url} ← ${where} (DEMO_WEBHOOK_RECEIVER=false to leave out)`);
  }
  if (traffic) lines.push(`  traffic:   a demo call every ~${Math.round(60 / traffic.callsPerMinute)} s through the simulators (DEMO_TRAFFIC=false to stop, DEMO_CALLS_PER_MINUTE)`);
  if (!config.adminToken) lines.push(`  admin:     token in ${shown(tokenFile)}`);
  if (demo) {
    lines.push(
      `  demo key:  ${demo.apiKey}`,
      '',
      '  Try it:',
      `    curl -s "${system.url}/v1/conversations?per_page=3" -H "Authorization: Bearer ${demo.apiKey}"`,
    );
  } else if (seedProblem) {
    lines.push(`  demo data: not created (${seedProblem})`);
  } else {
    lines.push('  demo data: skipped (SEED_DEMO=false)');
  }
  lines.push('', 'Ctrl-C to stop.', '');
  return lines.join('\n');
}
