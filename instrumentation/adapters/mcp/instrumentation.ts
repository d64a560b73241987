import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
  isWrapped,
} from '@opentelemetry/instrumentation';
import { VERSION } from '../../../src/version.js';
import { setToolOutcome } from '../../outcome.js';
import { ATTR_LOOPGUARD_FRAMEWORK, insideGuardedToolCall, isNotExecuted } from '../shared/guard-like.js';
import { EnabledInstances } from '../shared/guard-like.js';
import type { LoopguardInstrumentationConfig } from '../shared/guard-like.js';
import { requireIfInstalled, withModule } from '../shared/load.js';
import type { OpenRun } from '../../agent-run.js';
import { idOf, openAutoRun } from '../shared/auto-run.js';
import type { ToolCallGuard } from '../shared/guard-like.js';

const SDK_VERSIONS = ['>=1.0.0 <2'];
/** The module whose ESM (and CJS) copy is patched without loader hooks. */
export const MCP_CLIENT_MODULE = '@modelcontextprotocol/sdk/client/index.js';

// GenAI MCP semantic conventions (client span of a tools/call request).
const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
const ATTR_MCP_SESSION_ID = 'mcp.session.id';
const MCP_METHOD_TOOLS_CALL = 'tools/call';
const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';

interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}
interface ClientLike {
  transport?: { sessionId?: unknown };
  getServerVersion?: () => { name?: unknown } | undefined;
}
type CallToolFn = (this: ClientLike, params: CallToolParams, resultSchema?: unknown, options?: unknown) => Promise<unknown>;
type CloseFn = (this: ClientLike) => Promise<void>;
interface ClientModule {
  Client?: { prototype: { callTool: CallToolFn; close: CloseFn } };
}

/** Per client session used outside any run: the run it opened by itself, ended when the client closes. */
const sessionRuns = new WeakMap<ClientLike, OpenRun>();

function sessionRun(client: ClientLike, guard: ToolCallGuard): OpenRun | undefined {
  const open = sessionRuns.get(client);
  if (open) return open;
  const server = idOf(client.getServerVersion?.()?.name);
  const conversationId = idOf(client.transport?.sessionId);
  const run = openAutoRun(guard, server ? `mcp ${server}` : 'mcp', conversationId ? { conversationId } : {});
  if (run) sessionRuns.set(client, run);
  return run;
}

/**
 * The JSON-RPC id of the `tools/call` request just sent: the SDK numbers
 * requests from a counter and sends synchronously from `callTool`, so the id
 * is the counter's value before the call when it moved by exactly one.
 */
function recordRequestId(client: ClientLike, before: unknown): void {
  const after = (client as { _requestMessageId?: unknown })._requestMessageId;
  if (typeof before === 'number' && after === before + 1) trace.getActiveSpan()?.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(before));
}

function wrapClose(original: CloseFn): CloseFn {
  return async function loopguardClose(this: ClientLike): Promise<void> {
    try {
      return await original.call(this);
    } finally {
      sessionRuns.get(this)?.end();
      sessionRuns.delete(this);
    }
  };
}

const instances = new EnabledInstances<McpClientInstrumentation>();

function mcpAttributes(client: ClientLike): Attributes {
  const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: MCP_METHOD_TOOLS_CALL, [ATTR_LOOPGUARD_FRAMEWORK]: 'mcp' };
  const sessionId = client.transport?.sessionId;
  if (typeof sessionId === 'string' && sessionId !== '') attributes[ATTR_MCP_SESSION_ID] = sessionId;
  return attributes;
}

/**
 * MCP TypeScript SDK: `Client.prototype.callTool`. MCP reports tool failures
 * in-band (`CallToolResult.isError`), so a blocked call answers with an
 * `isError` result carrying the "not executed" text, and a nudge is added to
 * the result's `content`, where hosts read it. A break rejects `callTool`
 * with LoopBreakError. When another guarded tool span is already active (an
 * agent framework's tool that forwards to MCP), that span is the tool call:
 * MCP attributes are added to it instead of guarding the call twice, as the
 * MCP conventions ask.
 */
export class McpClientInstrumentation extends InstrumentationBase<LoopguardInstrumentationConfig> {
  declare ready: Promise<void>;
  /** Copies patched outside the module hooks, which `disable()` must restore itself. */
  declare private eager: ClientModule[] | undefined;

  constructor(config: LoopguardInstrumentationConfig) {
    super('loopguard-instrumentation-mcp', VERSION, config);
  }

  protected init() {
    const client = (dir: string) =>
      new InstrumentationNodeModuleFile(`@modelcontextprotocol/sdk/dist/${dir}/client/index.js`, SDK_VERSIONS, (m: ClientModule) => this.patch(m), (m?: ClientModule) => this.unpatch(m));
    return new InstrumentationNodeModuleDefinition('@modelcontextprotocol/sdk', SDK_VERSIONS, undefined, undefined, [client('cjs'), client('esm')]);
  }

  override enable(): void {
    super.enable();
    instances.add(this);
    // require-in-the-middle cannot hook this package's CJS files (it has no `require` entry for
    // its root, which the hook resolves to find the package), so the CJS copy is patched eagerly too.
    this.eager = [];
    const cjs = requireIfInstalled(MCP_CLIENT_MODULE) as ClientModule | undefined;
    if (cjs) this.eager.push(this.patch(cjs));
    this.ready = withModule(MCP_CLIENT_MODULE, (m) => {
      if (this.isEnabled()) this.eager?.push(this.patch(m as ClientModule));
    });
  }

  override disable(): void {
    super.disable();
    instances.remove(this);
    for (const m of this.eager ?? []) this.unpatch(m);
    this.eager = undefined;
  }

  guard() {
    return this.getConfig().guard;
  }

  private patch(moduleExports: ClientModule): ClientModule {
    const proto = moduleExports?.Client?.prototype;
    if (proto && !isWrapped(proto.callTool)) this._wrap(proto, 'callTool', (original) => wrapCallTool(original));
    if (proto && typeof proto.close === 'function' && !isWrapped(proto.close)) this._wrap(proto, 'close', (original) => wrapClose(original));
    return moduleExports;
  }

  private unpatch(moduleExports?: ClientModule): void {
    const proto = moduleExports?.Client?.prototype;
    if (proto && isWrapped(proto.callTool)) this._unwrap(proto, 'callTool');
    if (proto && isWrapped(proto.close)) this._unwrap(proto, 'close');
  }
}

function wrapCallTool(original: CallToolFn): CallToolFn {
  return async function loopguardCallTool(this: ClientLike, params: CallToolParams, resultSchema?: unknown, options?: unknown): Promise<unknown> {
    const instrumentation = instances.current;
    if (!instrumentation || typeof params?.name !== 'string') return original.call(this, params, resultSchema, options);
    const attributes = mcpAttributes(this);
    const before = (this as { _requestMessageId?: unknown })._requestMessageId;
    if (insideGuardedToolCall()) {
      trace.getActiveSpan()?.setAttributes(attributes);
      return original.call(this, params, resultSchema, options);
    }
    const execute = async () => {
      const pending = original.call(this, params, resultSchema, options);
      recordRequestId(this, before);
      const result = await pending;
      if ((result as { isError?: unknown } | undefined)?.isError === true) setToolOutcome('error');
      return result;
    };
    // The GenAI MCP conventions: a `tools/call {tool}` CLIENT span.
    const guard = instrumentation.guard();
    const call = () =>
      guard.callTool(params.name, params.arguments ?? {}, execute, {
        attributes,
        spanName: `tools/call ${params.name}`,
        kind: SpanKind.CLIENT,
      });
    const run = sessionRun(this, guard);
    const result = await (run ? context.with(run.context, call) : call());
    if (isNotExecuted(result)) return { content: [{ type: 'text', text: result.message }], isError: true };
    return moveNoticeIntoContent(result);
  }
}

/** The guard appends a nudge to plain objects as `loopguard_notice`; an MCP host only shows `content` to the model. */
function moveNoticeIntoContent(result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const { loopguard_notice: notice, ...rest } = result as Record<string, unknown>;
  if (typeof notice !== 'string') return result;
  const content = Array.isArray(rest.content) ? rest.content : [];
  return { ...rest, content: [...content, { type: 'text', text: notice }] };
}
