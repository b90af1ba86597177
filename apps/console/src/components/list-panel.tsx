import { Fragment, useLayoutEffect, useRef, type ReactNode } from 'react';
import { ErrorNotice, Loading } from './notices';
import { TableScroller } from './table-scroller';

/** One page of a paged list endpoint (GET /v1/agents, /v1/conversations, …): its items and the totals. */
export interface ListPage<Item> {
  data: Item[];
  meta: { total: number; total_pages: number };
}

/** What the panel reads from the list's query (a react-query result has all of it). */
export interface ListQuery<Item> {
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  error: unknown;
  data: ListPage<Item> | undefined;
}

export interface ListPanelProps<Item> {
  query: ListQuery<Item>;
  /** What is loading, after "Loading …" (e.g. "agents"). */
  loadingWhat: string;
  /** The heading of the error shown when the list could not be loaded. */
  errorTitle: string;
  /** What the pager counts ("25 agents · page 1 of 1"). */
  noun: string;
  page: number;
  onPage: (page: number) => void;
  /** The accessible name of the table's scroll region. */
  label: string;
  columns: readonly string[];
  itemKey: (item: Item) => string;
  /** One table row (<tr>) for an item. */
  row: (item: Item) => ReactNode;
  /** Shown instead of an empty table; without it an empty page still shows the table's header. */
  empty?: ReactNode;
  /** Marks the list aria-busy while a new page or filter is read (the previous page stays on screen meanwhile). */
  busyWhileFetching?: boolean;
}

/**
 * A paged list read from the API, the same way in every view: "Loading …" before the first page, the error in
 * place of the list, then the pager over either the empty message or a table of one row per item.
 */
export function ListPanel<Item>({ query, loadingWhat, errorTitle, noun, page, onPage, label, columns, itemKey, row, empty, busyWhileFetching = false }: ListPanelProps<Item>) {
  const list = query.data;
  const body = useRef<HTMLTableSectionElement>(null);
  // On a phone each row is laid out as a card (styles.css): every cell carries its column's name to show beside it.
  useLayoutEffect(() => {
    for (const row of Array.from(body.current?.rows ?? [])) {
      Array.from(row.cells).forEach((cell, index) => {
        if (columns[index] && cell.dataset.label !== columns[index]) cell.dataset.label = columns[index];
      });
    }
  });
  const content = list ? (
    <>
      <Pager page={page} totalPages={list.meta.total_pages} total={list.meta.total} noun={noun} onPage={onPage} />
      {empty !== undefined && list.data.length === 0 ? (
        <p className="empty" role="status">
          {empty}
        </p>
      ) : (
        <TableScroller label={label} stacked>
          <table>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody ref={body}>
              {list.data.map((item) => (
                <Fragment key={itemKey(item)}>{row(item)}</Fragment>
              ))}
            </tbody>
          </table>
        </TableScroller>
      )}
    </>
  ) : null;
  return (
    <>
      {query.isPending ? <Loading what={loadingWhat} /> : null}
      {query.isError ? <ErrorNotice error={query.error} title={errorTitle} /> : null}
      {content && busyWhileFetching ? <div aria-busy={query.isFetching}>{content}</div> : content}
    </>
  );
}

function Pager({ page, totalPages, total, onPage, noun }: { page: number; totalPages: number; total: number; onPage: (page: number) => void; noun: string }) {
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span role="status">
        {total} {noun} · page {Math.min(page, Math.max(totalPages, 1))} of {Math.max(totalPages, 1)}
      </span>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
