"""A small scriptable HTTP server on loopback, for the failures a real model server produces now and then:
429 with Retry-After, 5xx, silence until the client times out, streams cut mid-way, malformed JSON.

Each request takes the next scripted reply (or the default reply when the script is empty) and is
recorded (path, headers, JSON body) so tests can check what the SDK really sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Status:
    """A plain (non-streamed) JSON reply with an HTTP status."""

    code: int
    body: Any = field(default_factory=dict)
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Stream:
    """A server-sent-events reply. Items are (event name or None, data) pairs; data that is not a str is
    JSON-encoded. `truncate` closes the connection without ending the chunked body."""

    items: tuple[tuple[str | None, Any], ...]
    truncate: bool = False
    pause: float = 0.0  # seconds before each item


@dataclass(frozen=True)
class Hang:
    """Accept the request and say nothing for `seconds` (the client should time out first)."""

    seconds: float


Reply = Status | Stream | Hang | Callable[[dict[str, Any]], "Status | Stream | Hang"]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


class FakeModelServer:
    def __init__(self, default: Reply | None = None) -> None:
        self.script: deque[Reply] = deque()
        self.default = default
        self.requests: list[Recorded] = []
        self.disconnects = 0  # replies the client stopped reading mid-way
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                with server._lock:
                    server.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                    body))
                    reply = server.script.popleft() if server.script else server.default
                if callable(reply):
                    reply = reply(body)
                if reply is None:
                    reply = Status(500, {"error": {"message": "fake server has no scripted reply"}})
                try:
                    self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    with server._lock:
                        server.disconnects += 1

            def _send(self, reply: Status | Stream | Hang) -> None:
                if isinstance(reply, Hang):
                    time.sleep(reply.seconds)
                    self.close_connection = True
                    return
                if isinstance(reply, Status):
                    payload = (reply.body if isinstance(reply.body, bytes)
                               else json.dumps(reply.body).encode())
                    self.send_response(reply.code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers:
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for name, data in reply.items:
                    if reply.pause:
                        time.sleep(reply.pause)
                    text = data if isinstance(data, str) else json.dumps(data)
                    frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
                    chunk = frame.encode()
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                if reply.truncate:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.wfile.write(b"0\r\n\r\n")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def start(self) -> FakeModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


# -- OpenAI chat completions streaming format ---------------------------------------------------------

def openai_chunk(content: str | None = None, finish: str | None = None, tool_calls: list[Any] | None = None,
                 usage: dict[str, int] | None = None, model: str = "fake-model") -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    choices = [] if usage is not None and content is None and finish is None and tool_calls is None else [
        {"index": 0, "delta": delta, "finish_reason": finish}]
    chunk: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                             "model": model, "choices": choices}
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def openai_stream(pieces: Iterable[str], *, usage: tuple[int, int] | None = (11, 7), finish: str = "stop",
                  truncate: bool = False, pause: float = 0.0) -> Stream:
    items: list[tuple[str | None, Any]] = [(None, openai_chunk(content=p)) for p in pieces]
    if truncate:
        return Stream(tuple(items), truncate=True, pause=pause)
    items.append((None, openai_chunk(finish=finish)))
    if usage is not None:
        items.append((None, openai_chunk(usage={"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                                "total_tokens": usage[0] + usage[1]})))
    items.append((None, "[DONE]"))
    return Stream(tuple(items), pause=pause)


def openai_error(code: int, message: str, *headers: tuple[str, str]) -> Status:
    return Status(code, {"error": {"message": message, "type": "error", "code": None}}, tuple(headers))


# -- Anthropic messages streaming format --------------------------------------------------------------

def anthropic_stream(blocks: Iterable[dict[str, Any]], *, input_tokens: int = 13, output_tokens: int = 9,
                     stop_reason: str = "end_turn", truncate_after: int | None = None,
                     model: str = "claude-fake") -> Stream:
    """blocks: {"type": "text", "deltas": [...]} or {"type": "tool_use", "id", "name", "json": [...]}."""
    items: list[tuple[str | None, Any]] = [("message_start", {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [],
                    "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": input_tokens, "output_tokens": 1}}})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": t} for t in block["deltas"]]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": j} for j in block["json"]]
        items.append(("content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": start}))
        items.append(("ping", {"type": "ping"}))
        items.extend(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
                     for d in deltas)
        items.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    items.append(("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                    "usage": {"output_tokens": output_tokens}}))
    items.append(("message_stop", {"type": "message_stop"}))
    if truncate_after is not None:
        return Stream(tuple(items[:truncate_after]), truncate=True)
    return Stream(tuple(items))


def anthropic_error(code: int, kind: str, message: str, *headers: tuple[str, str]) -> Status:
    return Status(code, {"type": "error", "error": {"type": kind, "message": message}}, tuple(headers))
