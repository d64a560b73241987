"""An agent written in Python with the OpenTelemetry Python SDK and no loopguard.

It emits GenAI semantic-convention spans (an ``invoke_agent`` span around the
run, one ``execute_tool`` span per tool call with ``gen_ai.tool.call.arguments``
and ``gen_ai.tool.call.result`` as JSON text) over OTLP/HTTP to a loopguard
collector, and after every tool call asks the collector for its verdict,
``GET /v1/runs/{key}``, where the key is its ``gen_ai.conversation.id`` when
it has one, else its trace id as 32 hex digits. It stops as soon as the
verdict says ``stopped: true``: that is how a remote agent obeys loopguard.

``--mode looping`` keeps asking for an order that does not exist;
``--mode normal`` reads a new page each step; ``--mode deploy`` checks the
health of a real HTTP service on a local port before it is up (the check
fails: connection refused), reads a page, restarts the service and finishes,
re-checking its health first only with ``--recheck``. A tool call that
fails gets what OpenTelemetry instrumentations put on a failed span: status
ERROR with the error's message, an ``exception`` event and the ``error.type``
of the GenAI conventions (no result); the agent goes on, as one that hands
tool errors back to its model does.

stdout: one JSON line per step (``{"type": "step", ...}``, with the tool's
arguments and its error, if it failed) and a last one
(``{"type": "run", ...}``). Exit 0 when the run ended (stopped or not),
non-zero on any error talking to the collector.
"""

from __future__ import annotations

import argparse
import http.server
import itertools
import json
import socket
import sys
import threading
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


class HealthHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status": "up"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # stdout carries the agent's JSON lines only


class Service:
    """A real HTTP service on a free local port, down until restarted."""

    def __init__(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.health_url = f"http://127.0.0.1:{self.port}/health"
        self.server = None

    def restart(self, name: str) -> dict:
        if self.server is None:
            self.server = http.server.HTTPServer(("127.0.0.1", self.port), HealthHandler)
            threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return {"service": name, "restarted": True}

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def check_health(url: str) -> dict:
    # urlopen raises on a refused connection and on any non-2xx answer.
    with urllib.request.urlopen(url, timeout=5) as response:
        return {"status": response.status, "body": json.loads(response.read().decode("utf-8"))}


def calls(mode: str, service: Service, recheck: bool):
    """The agent's tool calls in order (the looping and normal agents never finish on their own)."""
    if mode == "looping":
        return itertools.repeat(("search_orders", {"customer_id": "C-77", "query": "order A-10492"}))
    if mode == "normal":
        return (("read_page", {"url": f"https://docs.example.com/guide/page-{step}"}) for step in itertools.count(1))
    deploy = [
        ("check_health", {"url": service.health_url}),
        ("read_page", {"url": "https://docs.example.com/runbook/page-3"}),
        ("restart_service", {"name": "health-api"}),
    ]
    return deploy + [("check_health", {"url": service.health_url})] if recheck else deploy


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
    parser.add_argument("--mode", choices=["looping", "normal", "deploy"], required=True)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--recheck", action="store_true", help="deploy: check the health again after the restart")
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

    service = Service()
    tools = {"search_orders": search_orders, "read_page": read_page, "check_health": check_health, "restart_service": service.restart}
    verdict = None
    tool_calls = 0
    with tracer.start_as_current_span("invoke_agent python-agent", kind=SpanKind.INTERNAL, attributes=root_attributes) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        run_key = args.conversation_id or trace_id
        planned = itertools.islice(calls(args.mode, service, args.recheck), args.max_steps)
        for step, (tool, tool_args) in enumerate(planned, start=1):
            error = None
            with tracer.start_as_current_span(f"execute_tool {tool}", kind=SpanKind.INTERNAL) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute("gen_ai.tool.call.id", f"call-{step}")
                if args.conversation_id:
                    # On every span, not only the root: the root ends last, so the
                    # collector sees the tool calls long before it.
                    span.set_attribute("gen_ai.conversation.id", args.conversation_id)
                span.set_attribute("gen_ai.tool.call.arguments", json.dumps(tool_args))
                try:
                    result = tools[tool](**tool_args)
                except OSError as failure:
                    # The error goes back to the model, not up: the run goes on.
                    error = f"{type(failure).__name__}: {failure}"
                    span.record_exception(failure)
                    span.set_attribute("error.type", type(failure).__qualname__)
                    span.set_status(Status(StatusCode.ERROR, str(failure)))
                else:
                    span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
                    span.set_status(Status(StatusCode.OK))
            tool_calls += 1
            # The collector only knows what reached it: flush, then ask.
            if not provider.force_flush(timeout_millis=10_000):
                raise RuntimeError("force_flush timed out: the spans did not reach the collector")
            verdict = read_verdict(base_url, run_key)
            emit({"type": "step", "step": step, "tool": tool, "args": tool_args, "error": error, "verdict": verdict})
            if verdict is not None and verdict.get("stopped") is True:
                break

    service.stop()
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
