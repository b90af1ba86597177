import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DataRequestsRpc, type AccessDocument, type CreateDataRequestRequest, type DataRequestRequest, type DataRequestView, type ListDataRequestsRequest,
  type PageResult,
} from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { DATA_REQUEST_ID, downloadProblem, parseDataRequestBody, parseDataRequestListQuery, toDataRequestView, type DataRequestRow } from './data-request.rules.js';
import { findDataRequest, insertDataRequest, listDataRequests, readExportDocuments } from './data-requests.store.js';
import { DataRequestsWorker } from './data-requests.worker.js';

/** The data requests' RPCs (POST/GET /v1/data-requests…): every one names the account, and another account's id is not found. */
@Controller()
export class DataRequestsMessageController {
  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly worker: DataRequestsWorker,
  ) {}

  @MessagePattern(DataRequestsRpc.create)
  async create(@Payload() request: CreateDataRequestRequest): Promise<DataRequestView> {
    const parsed = parseDataRequestBody(request.body);
    if ('problem' in parsed) return fail(parsed.problem.code, parsed.problem.message, parsed.problem);
    const row = await insertDataRequest(this.ctx.dataSource, request.account_id, parsed);
    this.worker.nudge();
    return toDataRequestView(row);
  }

  @MessagePattern(DataRequestsRpc.list)
  async list(@Payload() request: ListDataRequestsRequest): Promise<PageResult<DataRequestView>> {
    const parsed = parseDataRequestListQuery(request.query);
    if ('problem' in parsed) return fail(parsed.problem.code, parsed.problem.message, parsed.problem);
    const { items, total } = await listDataRequests(this.ctx.dataSource, request.account_id, parsed.page, parsed.per_page);
    return { items: items.map(toDataRequestView), total, page: parsed.page, per_page: parsed.per_page };
  }

  @MessagePattern(DataRequestsRpc.get)
  async get(@Payload() request: DataRequestRequest): Promise<DataRequestView> {
    return toDataRequestView(await this.find(request));
  }

  /** The whole document; over NATS a large one leaves as a claim check (ReplyClaimInterceptor), never one oversized message. */
  @MessagePattern(DataRequestsRpc.download)
  async download(@Payload() request: DataRequestRequest): Promise<AccessDocument> {
    const row = await this.find(request);
    const problem = downloadProblem(row, new Date());
    if (problem) return fail(problem.code, problem.message);
    return {
      request_id: row.id,
      caller_number: row.caller_number_masked,
      generated_at: row.completed_at!.toISOString(),
      conversations: await readExportDocuments(this.ctx.dataSource, row.id),
    };
  }

  private async find({ account_id: accountId, request_id: id }: DataRequestRequest): Promise<DataRequestRow> {
    const row = DATA_REQUEST_ID.test(id) ? await findDataRequest(this.ctx.dataSource, accountId, id) : undefined;
    if (!row) return fail('not_found', `No data request ${id} in this account.`);
    return row;
  }
}
