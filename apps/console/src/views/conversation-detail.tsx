import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { api, downloadFile, unwrap, type Schemas } from '../api/client';
import { ErrorNotice, Loading } from '../components/notices';
import { TRANSCRIPT_FORMATS, transcriptFileName, type TranscriptFormat } from '../presentation/downloads';
import { formatDuration, formatMoney, formatOffset, formatTime, humanize, platformName, topicList } from '../presentation/format';
import { QUALITY_LABELS, qualityValue, segmentAt } from '../presentation/call-details';
import { highlightParts } from '../presentation/highlight';
import { Link, useLocation } from '../router';

/** While a call is in progress its detail is read again this often, so the transcript grows on screen. */
const LIVE_POLL_MS = 1500;
/** A platform's analysis (summary, recording) arrives some seconds after the hang-up: looked for this long. */
const ANALYSIS_WAIT_MS = 120_000;

function liveRefetchMs(c: Schemas['ConversationDetail'] | undefined): number | false {
  if (!c) return false;
  if (c.status === 'in_progress') return LIVE_POLL_MS;
  const ended = Date.parse(c.end_time ?? '');
  const awaitingAnalysis = c.status === 'completed' && c.summary === null && Date.now() - ended < ANALYSIS_WAIT_MS;
  return awaitingAnalysis ? 3000 : false;
}

export function ConversationDetailView({ id }: { id: string }) {
  const { search } = useLocation();
  const highlight = new URLSearchParams(search).get('highlight') ?? undefined;
  const query = useQuery({
    queryKey: ['conversation', id],
    queryFn: () => unwrap(api.GET('/v1/conversations/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => liveRefetchMs(q.state.data?.data),
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
              ['Topics', topicList(c.analytics.topics)],
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
              ['Platform', platformName(c.technical.voice_platform)],
              ['Platform call id', c.technical.platform_call_id ?? '—'],
              ['End reason', humanize(c.technical.end_reason)],
              ['Cost', c.technical.cost ? `${formatMoney(c.technical.cost.amount, c.technical.cost.currency)}${c.technical.cost.breakdown.length ? ` (${c.technical.cost.breakdown.map((b) => `${b.component} ${formatMoney(b.amount, '')}`).join(', ')})` : ''}` : '—'],
              ['Network', c.technical.network ? [c.technical.network.carrier, c.technical.network.codec, c.technical.network.region].filter(Boolean).join(', ') || '—' : '—'],
              ['Errors', c.technical.errors.map((e) => `${e.code}: ${e.message}`).join('; ') || 'None'],
            ]}
          />
          <CallQuality technical={c.technical} />
        </Card>
      </div>
      {c.summary ? (
        <section aria-labelledby="summary-title">
          <h2 id="summary-title">Summary</h2>
          <p>{c.summary}</p>
        </section>
      ) : null}
      <RecordingAndTranscript conversation={c} highlight={highlight} />
    </>
  );
}

/**
 * The player and the transcript follow each other: while the recording plays, the line being spoken is marked
 * (and kept in view); a line's time is a button that plays the recording from there.
 */
function RecordingAndTranscript({ conversation: c, highlight }: { conversation: Schemas['ConversationDetail']; highlight?: string }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [speaking, setSpeaking] = useState<number>();
  const url = c.content.recording_url;
  const seek = (ms: number) => {
    const player = audio.current;
    if (!player) return;
    player.currentTime = ms / 1000;
    void player.play().catch(() => undefined);
  };
  return (
    <>
      {url ? (
        <section aria-labelledby="recording-title">
          <h2 id="recording-title">Recording</h2>
          <audio
            ref={audio}
            controls
            preload="metadata"
            src={url}
            aria-labelledby="recording-title"
            onTimeUpdate={(e) => setSpeaking(segmentAt(c.content.transcript, e.currentTarget.currentTime * 1000))}
            onEnded={() => setSpeaking(undefined)}
          >
            <a href={url}>Download the recording</a>
          </audio>
        </section>
      ) : null}
      <Transcript conversation={c} highlight={highlight} speaking={speaking} onSeek={url ? seek : undefined} />
    </>
  );
}

function Transcript({ conversation: c, highlight, speaking, onSeek }: { conversation: Schemas['ConversationDetail']; highlight?: string; speaking?: number; onSeek?: (ms: number) => void }) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (speaking === undefined) return;
    const line = list.current?.children[speaking] as HTMLElement | undefined;
    line?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [speaking]);
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
        <ol ref={list} className="chat" aria-live={c.status === 'in_progress' ? 'polite' : undefined}>
          {segments.map((s, i) => (
            <li key={i} className={`turn ${s.speaker}${speaking === i ? ' speaking' : ''}`} aria-current={speaking === i ? 'true' : undefined}>
              <span className="speaker">{s.speaker === 'agent' ? 'Agent' : 'Caller'}</span>{' '}
              {onSeek ? (
                <button type="button" className="seek" onClick={() => onSeek(s.start_ms)} aria-label={`Play from ${formatOffset(s.start_ms)}`}>
                  {formatOffset(s.start_ms)}
                </button>
              ) : (
                <time className="muted">{formatOffset(s.start_ms)}</time>
              )}
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

/** Voice quality and latency figures as small tables: one row per measure, one per component. */
function CallQuality({ technical: t }: { technical: Schemas['ConversationDetail']['technical'] }) {
  const quality = t.quality ? (Object.entries(t.quality) as Array<[string, number]>).filter(([, v]) => v !== undefined && v !== null) : [];
  return (
    <>
      {quality.length ? (
        <table className="mini">
          <caption>Voice quality</caption>
          <tbody>
            {quality.map(([key, value]) => (
              <tr key={key}>
                <th scope="row">{QUALITY_LABELS[key] ?? humanize(key)}</th>
                <td>{qualityValue(key, value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {t.latency.length ? (
        <table className="mini">
          <caption>Latency (ms)</caption>
          <thead>
            <tr>
              <th scope="col">Component</th>
              <th scope="col">Median</th>
              <th scope="col">90th pct.</th>
            </tr>
          </thead>
          <tbody>
            {t.latency.map((l) => (
              <tr key={l.component}>
                <th scope="row">{humanize(l.component)}</th>
                <td>{l.p50_ms ?? l.average_ms ?? '—'}</td>
                <td>{l.p90_ms ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
