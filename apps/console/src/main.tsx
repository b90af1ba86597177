import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiProblem } from './api/client';
import { App } from './app';
import { adoptKeyFromUrl, signOut } from './session/session';
import './styles.css';

adoptKeyFromUrl();
// The sign-in link opened in a tab already showing that page changes only the fragment (no reload).
window.addEventListener('hashchange', adoptKeyFromUrl);

/** A 401 anywhere means the key is no longer good (revoked, mistyped): back to sign-in, saying why. */
function onApiError(error: unknown) {
  if (error instanceof ApiProblem && error.status === 401) {
    queryClient.clear();
    signOut(`The API refused this key (${error.message}) Sign in with another.`);
  }
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
  defaultOptions: {
    queries: {
      // A 4xx will answer the same again; an outage (5xx, network) is worth two more tries.
      retry: (count, error) => !(error instanceof ApiProblem && error.status >= 400 && error.status < 500) && count < 2,
      staleTime: 15_000,
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
