import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api, downloadFile, unwrap, type Schemas } from '../api/client';
import { ErrorNotice, Loading } from '../components/notices';
import { TRANSCRIPT_FORMATS, transcriptFileName, type TranscriptFormat } from '../presentation/downloads';
import { formatDuration, formatMoney, formatOffset, formatTime, humanize } from '../presentation/format';
import { highlightParts } from '../presentation/highlight';
import { Link, useLocation } from '../router';

/** While a call is in progress its detail is read again this often, so the transcript grows on screen. */
const LIVE_POLL_MS = 1500;

export function ConversationDetailView({ id }: { id: string }) {
  const { search } = useLocation();
  const highlight = new URLSearchParams(search).get('highlight') ?? undefined;
  const query = useQuery({
    queryKey: ['conversation', id],
    queryFn: () => unwrap(api.GET('/v1/conversations/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data?.data.status === 'in_progress' ? LIVE_POLL_MS : false),
    staleTime: 0,
  });
  return (
    <>
      <p>
        <Link to="/conversations">← Conversations</Link>
      </p>
      {query.isPending ? <Loading what="the conversation" /> : null}
      {query.isError ? <ErrorNotice error={query.error} title="The conversation could not be loaded" /> : null}
      {query.data ? <Detail conversation={query.data.data} highlight={highlight} /> : null}
    </>
  );
}

function Detail({ conversation: c, highlight }: { conversation: Schemas['ConversationDetail']; highlight?: string }) {
  const live = c.status === 'in_progress';
  return (
    <>
      <h1>Conversation {c.id}</h1>
      {live ? (
        <p className="notice live" role="status">
          In progress: this page updates as the call goes on.
        </p>
      ) : null}
      <div className="cards">
        <Card title="Call">
          <Facts
            rows={[
              ['Status', <span className={`badge status-${c.status}`}>{humanize(c.status)}</span>],
              ['Started', formatTime(c.start_time)],
              ['Ended', formatTime(c.end_time)],
              ['Duration', formatDuration(c.duration)],
              ['Caller', c.caller_number ?? '—'],
              ['Agent', <Link to={`/agents/${encodeURIComponent(c.agent_id)}`}>{c.agent_name ?? c.agent_id}</Link>],
              ...(c.failure_reason ? [['Failure', c.failure_reason] as [string, ReactNode]] : []),
              ...(c.abandonment_reason ? [['Abandoned', humanize(c.abandonment_reason)] as [string, ReactNode]] : []),
            ]}
          />
        </Card>
        <Card title="Analytics">
          <Facts
            rows={[
              ['Sentiment', humanize(c.analytics.sentiment ?? c.sentiment)],
              ['Intent', humanize(c.analytics.intent)],
              ['Topics', c.analytics.topics.join(', ') || '—'],
              ['Keywords', c.analytics.keywords.join(', ') || '—'],
              ['Satisfaction', c.analytics.satisfaction?.score !== undefined ? `${c.analytics.satisfaction.score} / 5` : '—'],
            ]}
          />
        </Card>
        <Card title="Outcomes">
          <Facts
            rows={[
              ['Outcome', humanize(c.outcomes.outcome ?? c.outcome)],
              ['Actions taken', c.outcomes.actions_taken.map(humanize).join(', ') || '—'],
              ['Follow-up tasks', c.outcomes.follow_up_tasks.map((t) => t.description + (t.due_at ? ` (due ${formatTime(t.due_at)})` : '')).join('; ') || '—'],
              ['Integrations', c.outcomes.integrations.map((i) => `${i.system}: ${i.action}${i.reference ? ` (${i.reference})` : ''}`).join('; ') || '—'],
            ]}
          />
        </Card>
        <Card title="Technical details">
          <Facts
            rows={[
              ['Platform', humanize(c.technical.voice_platform)],
              ['Platform call id', c.technical.platform_call_id ?? '—'],
              ['End reason', humanize(c.technical.end_reason)],
              ['Cost', c.technical.cost ? `${formatMoney(c.technical.cost.amount, c.technical.cost.currency)}${c.technical.cost.breakdown.length ? ` (${c.technical.cost.breakdown.map((b) => `${b.component} ${formatMoney(b.amount, '')}`).join(', ')})` : ''}` : '—'],
              ['Latency', c.technical.latency.map((l) => `${l.component}: p50 ${l.p50_ms ?? '—'} ms, p90 ${l.p90_ms ?? '—'} ms`).join('; ') || '—'],
              ['Quality', c.technical.quality ? Object.entries(c.technical.quality).map(([k, v]) => `${k} ${v}`).join(', ') : '—'],
              ['Network', c.technical.network ? Object.values(c.technical.network).join(', ') : '—'],
              ['Errors', c.technical.errors.map((e) => `${e.code}: ${e.message}`).join('; ') || 'None'],
            ]}
          />
        </Card>
      </div>
      {c.summary ? (
        <section aria-labelledby="summary-title">
          <h2 id="summary-title">Summary</h2>
          <p>{c.summary}</p>
        </section>
      ) : null}
      {c.content.recording_url ? (
        <section aria-labelledby="recording-title">
          <h2 id="recording-title">Recording</h2>
          <audio controls preload="none" src={c.content.recording_url} aria-labelledby="recording-title">
            <a href={c.content.recording_url}>Download the recording</a>
          </audio>
        </section>
      ) : null}
      <Transcript conversation={c} highlight={highlight} />
    </>
  );
}

function Transcript({ conversation: c, highlight }: { conversation: Schemas['ConversationDetail']; highlight?: string }) {
  const [downloadError, setDownloadError] = useState<unknown>();
  const download = async (format: TranscriptFormat) => {
    setDownloadError(undefined);
    try {
      await downloadFile(`/v1/conversations/${encodeURIComponent(c.id)}/transcript?format=${format}`, transcriptFileName(c.id, format));
    } catch (err) {
      setDownloadError(err);
    }
  };
  const segments = c.content.transcript;
  return (
    <section aria-labelledby="transcript-title">
      <h2 id="transcript-title">Transcript</h2>
      {segments.length ? (
        <div className="downloads" role="group" aria-label="Download the transcript">
          {TRANSCRIPT_FORMATS.map((f) => (
            <button key={f.format} type="button" onClick={() => void download(f.format)}>
              Download {f.label}
            </button>
          ))}
        </div>
      ) : null}
      {downloadError ? <ErrorNotice error={downloadError} title="The transcript could not be downloaded" /> : null}
      {segments.length === 0 ? (
        <p className="empty">{c.status === 'in_progress' ? 'Nothing said yet.' : 'This call has no transcript.'}</p>
      ) : (
        <ol className="chat" aria-live={c.status === 'in_progress' ? 'polite' : undefined}>
          {segments.map((s, i) => (
            <li key={i} className={`turn ${s.speaker}`}>
              <span className="speaker">{s.speaker === 'agent' ? 'Agent' : 'Caller'}</span>{' '}
              <time className="muted">{formatOffset(s.start_ms)}</time>
              <p>
                {highlightParts(s.text, highlight).map((part, j) => (part.match ? <mark key={j}>{part.text}</mark> : <span key={j}>{part.text}</span>))}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

function Facts({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="facts">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
