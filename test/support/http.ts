/** A small fetch wrapper for e2e tests: JSON in, parsed body out, headers kept. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiClient {
  request<T = any>(method: string, path: string, options?: { body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

export function apiClient(baseUrl: string, bearer?: string): ApiClient {
  const request: ApiClient['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...options.headers };
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(new URL(path, baseUrl), { method, headers, body: payload });
    const text = await res.text();
    let body: any = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text) body = JSON.parse(text);
    return { status: res.status, headers: res.headers, body, text };
  };
  return clientOf(request);
}

/** The verb shorthands over one request function (shared by wrapping clients). */
export function clientOf(request: ApiClient['request']): ApiClient {
  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    patch: (path, body, headers) => request('PATCH', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    delete: (path, headers) => request('DELETE', path, { headers }),
  };
}
