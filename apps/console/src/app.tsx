import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent } from 'react';
import { Link, matchPath, useLocation } from './router';
import { currentKey, signIn, signOut, signOutNotice, subscribeSession } from './session/session';
import { AgentEditor } from './views/agent-editor';
import { AgentsView } from './views/agents';
import { ApiKeysView } from './views/api-keys';
import { ConversationDetailView } from './views/conversation-detail';
import { ConversationsView } from './views/conversations';
import { IntegrationsView } from './views/integrations';
import { OverviewView } from './views/overview';
import { PrivacyView } from './views/privacy';
import { WebhookDeliveryView } from './views/webhook-deliveries';
import { WebhookEndpointView } from './views/webhook-endpoint';
import { WebhooksView } from './views/webhooks';

const NAVIGATION = [
  { to: '/', label: 'Overview' },
  { to: '/conversations', label: 'Conversations' },
  { to: '/agents', label: 'Agents' },
  { to: '/integrations', label: 'Integrations' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/privacy', label: 'Privacy' },
] as const;

export function App() {
  const key = useSyncExternalStore(subscribeSession, currentKey);
  return key ? <Shell /> : <SignIn />;
}

function SignIn() {
  const [value, setValue] = useState('');
  const notice = signOutNotice();
  useEffect(() => {
    document.title = 'Sign in · Voice agent operations';
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim()) signIn(value);
  };
  return (
    <main className="sign-in">
      <h1>Voice agent operations</h1>
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">Sign in</h2>
        {notice ? (
          <p className="notice error" role="alert">
            {notice}
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input id="api-key" name="api_key" type="password" autoComplete="off" spellCheck={false} required value={value} onChange={(e) => setValue(e.target.value)} />
          <small className="muted">Kept in this tab only (session storage); closing the tab signs you out.</small>
        </div>
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell() {
  const { path } = useLocation();
  const queryClient = useQueryClient();
  const section = NAVIGATION.find((item) => (item.to === '/' ? path === '/' : path === item.to || path.startsWith(`${item.to}/`)));
  useEffect(() => {
    document.title = `${section?.label ?? 'Not found'} · Voice agent operations`;
  }, [section]);
  // On a phone the navigation folds behind a Menu button (styles.css shows it only there).
  const [menuOpen, setMenuOpen] = useState(false);
  // After following a link, a screen reader starts at the new content, not at the top of the old page.
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) document.getElementById('main')?.focus({ preventScroll: true });
    setMenuOpen(false);
  }, [path]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Voice agent operations</span>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="main-navigation" onClick={() => setMenuOpen((open) => !open)}>
          Menu
        </button>
        <nav aria-label="Main" id="main-navigation" className={menuOpen ? 'open' : undefined}>
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={section === item ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
            <li>
              {/* The gateway renders its OpenAPI document there; a new tab keeps the console where it was. */}
              <a href="/docs" target="_blank" rel="noreferrer">
                API docs
              </a>
            </li>
          </ul>
        </nav>
        <button
          type="button"
          className="sign-out"
          onClick={() => {
            queryClient.clear();
            signOut();
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Route path={path} />
      </main>
    </>
  );
}

function Route({ path }: { path: string }) {
  if (path === '/') return <OverviewView />;
  if (path === '/conversations') return <ConversationsView />;
  const conversation = matchPath('/conversations/:id', path);
  if (conversation) return <ConversationDetailView id={conversation.id} />;
  if (path === '/agents') return <AgentsView />;
  if (path === '/agents/new') return <AgentEditor />;
  const agent = matchPath('/agents/:id', path);
  if (agent) return <AgentEditor id={agent.id} />;
  if (path === '/integrations') return <IntegrationsView />;
  if (path === '/api-keys') return <ApiKeysView />;
  if (path === '/privacy') return <PrivacyView />;
  if (path === '/webhooks') return <WebhooksView />;
  const endpoint = matchPath('/webhooks/:id', path);
  if (endpoint) return <WebhookEndpointView key={endpoint.id} id={endpoint.id} />;
  const delivery = matchPath('/webhooks/:id/deliveries/:deliveryId', path);
  if (delivery) return <WebhookDeliveryView endpointId={delivery.id} deliveryId={delivery.deliveryId} />;
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}
