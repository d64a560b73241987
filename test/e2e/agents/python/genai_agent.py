"""An agent written in Python with the OpenTelemetry Python SDK and no loopguard.

It emits GenAI semantic-convention spans (an ``invoke_agent`` span around the
run, one ``execute_tool`` span per tool call with ``gen_ai.tool.call.arguments``
and ``gen_ai.tool.call.result`` as JSON text) over OTLP/HTTP to a loopguard
collector, and after every tool call asks the collector for its verdict,
``GET /v1/runs/{key}``, where the key is its ``gen_ai.conversation.id`` when
it has one, else its trace id as 32 hex digits. It stops as soon as the
verdict says ``stopped: true``: that is how a remote agent obeys loopguard.

``--mode looping`` keeps asking for an order that does not exist;
``--mode normal`` reads a new page each step.

stdout: one JSON line per step (``{"type": "step", ...}``) and a last one
(``{"type": "run", ...}``). Exit 0 when the run ended (stopped or not),
non-zero on any error talking to the collector.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace import SpanKind, Status, StatusCode


class CountingExporter(OTLPSpanExporter):
    """The real OTLP/HTTP exporter, counting what it managed to send."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.exported = 0
        self.failed = 0

    def export(self, spans):
        result = super().export(spans)
        if result == SpanExportResult.SUCCESS:
            self.exported += len(spans)
        else:
            self.failed += len(spans)
        return result


# The agent's tools: real functions, deterministic results.
ORDERS = {"A-100": {"status": "shipped"}}


def search_orders(customer_id: str, query: str) -> dict:
    order_id = query.split()[-1]
    return {"matches": [ORDERS[order_id]] if order_id in ORDERS else [], "searched": "orders"}


def read_page(url: str) -> dict:
    page = url.rsplit("-", 1)[-1]
    return {"url": url, "text": f"section {page}: " + "lorem " * int(page)}


def next_call(mode: str, step: int) -> tuple[str, dict]:
    if mode == "looping":
        return "search_orders", {"customer_id": "C-77", "query": "order A-10492"}
    return "read_page", {"url": f"https://docs.example.com/guide/page-{step}"}


TOOLS = {"search_orders": search_orders, "read_page": read_page}


def read_verdict(base_url: str, key: str) -> dict | None:
    url = f"{base_url}/v1/runs/{urllib.parse.quote(key, safe='')}"
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise RuntimeError(f"GET {url} answered {error.code}: {error.read()[:300]!r}") from error


def emit(line: dict) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", required=True, help="loopguard collector base URL (OTLP/HTTP and /v1/runs)")
    parser.add_argument("--service", required=True, help="service.name of the spans")
    parser.add_argument("--mode", choices=["looping", "normal"], required=True)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--conversation-id", default=None)
    args = parser.parse_args()
    if args.max_steps < 1:
        parser.error(f"--max-steps must be >= 1, got {args.max_steps}")
    base_url = args.endpoint.rstrip("/")

    exporter = CountingExporter(endpoint=f"{base_url}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": args.service}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=200))
    tracer = provider.get_tracer("loopguard-e2e-python-agent")

    root_attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"python-{args.mode}"}
    if args.conversation_id:
        root_attributes["gen_ai.conversation.id"] = args.conversation_id

    verdict = None
    tool_calls = 0
    with tracer.start_as_current_span("invoke_agent python-agent", kind=SpanKind.INTERNAL, attributes=root_attributes) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        run_key = args.conversation_id or trace_id
        for step in range(1, args.max_steps + 1):
            tool, tool_args = next_call(args.mode, step)
            with tracer.start_as_current_span(f"execute_tool {tool}", kind=SpanKind.INTERNAL) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute("gen_ai.tool.call.id", f"call-{step}")
                if args.conversation_id:
                    # On every span, not only the root: the root ends last, so the
                    # collector sees the tool calls long before it.
                    span.set_attribute("gen_ai.conversation.id", args.conversation_id)
                span.set_attribute("gen_ai.tool.call.arguments", json.dumps(tool_args))
                result = TOOLS[tool](**tool_args)
                span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
                span.set_status(Status(StatusCode.OK))
            tool_calls += 1
            # The collector only knows what reached it: flush, then ask.
            if not provider.force_flush(timeout_millis=10_000):
                raise RuntimeError("force_flush timed out: the spans did not reach the collector")
            verdict = read_verdict(base_url, run_key)
            emit({"type": "step", "step": step, "tool": tool, "verdict": verdict})
            if verdict is not None and verdict.get("stopped") is True:
                break

    provider.shutdown()
    emit({
        "type": "run",
        "trace_id": trace_id,
        "run_key": run_key,
        "tool_calls": tool_calls,
        "stopped": bool(verdict and verdict.get("stopped")),
        "verdict": verdict,
        "exported_spans": exporter.exported,
        "failed_spans": exporter.failed,
    })
    return 0 if exporter.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
