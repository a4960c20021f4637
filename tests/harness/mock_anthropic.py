#!/usr/bin/env python3
"""Scripted Anthropic Messages API mock for the Claude Code end-to-end tests.

Serves `POST /v1/messages` on loopback. The script has two steps, chosen by what the
request carries rather than by a counter (Claude Code may make side requests):

  * a request that carries a `tool_result` (or any request once `--max-tool-calls` calls
    were scripted) gets the final text;
  * any other request that offers the `Bash` tool gets one `tool_use` of `Bash` with
    `{"command": <--command>}`;
  * anything else (side queries without tools) gets a short text.

With `--tool-calls FILE` (a JSON list of `{"name", "input"}`) the script is that sequence
instead: a request that offers tools and carries N tool results gets call N+1 (id
`toolu_mock_0<N+1>`), and once every call has its result, the final text.

Every request is appended to `--log` as one JSON line: method, path, which answer it got,
the text of every `tool_result` block (with `is_error`), and the full body. Stdlib only.
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()


def block_text(content):
    """Flattens a tool_result `content` (a string or a list of blocks) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(block.get("text", ""))
            else:
                parts.append(json.dumps(block))
        return "\n".join(parts)
    return json.dumps(content)


def tool_results(body):
    """Returns every tool_result block of the request, in order."""
    found = []
    for message in body.get("messages", []) or []:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.append(
                    {
                        "tool_use_id": block.get("tool_use_id"),
                        "is_error": bool(block.get("is_error", False)),
                        "content": block_text(block.get("content")),
                    }
                )
    return found


def offers_bash(body):
    return any(
        isinstance(tool, dict) and tool.get("name") == "Bash" for tool in body.get("tools", []) or []
    )


def sse(events):
    out = []
    for event in events:
        out.append("event: %s\ndata: %s\n\n" % (event["type"], json.dumps(event)))
    return "".join(out).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-anthropic/1"

    def log_message(self, fmt, *args):  # keep stderr quiet; the JSONL log is the record
        pass

    def record(self, entry):
        with LOG_LOCK:
            with open(self.server.opts.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(dict(entry, time=round(time.time(), 3))) + "\n")

    def reply(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", "req_mock")
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):  # noqa: N802 (http.server naming)
        self.record({"method": "GET", "path": self.path, "answer": "404"})
        self.reply(404, "application/json", b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}')

    def do_HEAD(self):  # noqa: N802
        self.record({"method": "HEAD", "path": self.path, "answer": "200"})
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        opts = self.server.opts

        if path.endswith("/count_tokens"):
            self.record({"method": "POST", "path": self.path, "answer": "count_tokens"})
            self.reply(200, "application/json", b'{"input_tokens": 100}')
            return
        if not path.endswith("/v1/messages"):
            self.record({"method": "POST", "path": self.path, "answer": "404", "body": body})
            self.reply(404, "application/json", b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}')
            return

        results = tool_results(body)
        script = self.server.script
        if script is not None:
            step = len(results)
            if step < len(script) and body.get("tools"):
                call = script[step]
                tool_id = "toolu_mock_%02d" % (step + 1)
                blocks = [{"type": "tool_use", "id": tool_id, "name": call["name"], "input": call["input"]}]
                answer, stop = "tool_use:" + call["name"], "tool_use"
            elif step >= len(script):
                answer, blocks, stop = "final", [{"type": "text", "text": opts.final_text}], "end_turn"
            else:
                answer, blocks, stop = "aux", [{"type": "text", "text": "ok"}], "end_turn"
        elif results or self.server.tool_calls >= opts.max_tool_calls:
            answer, blocks, stop = "final", [{"type": "text", "text": opts.final_text}], "end_turn"
        elif offers_bash(body):
            self.server.tool_calls += 1
            tool_id = "toolu_mock_%02d" % self.server.tool_calls
            blocks = [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": opts.command, "description": "scripted by the mock"}}]
            answer, stop = "tool_use", "tool_use"
        else:
            answer, blocks, stop = "aux", [{"type": "text", "text": "ok"}], "end_turn"

        self.record(
            {"method": "POST", "path": self.path, "answer": answer, "tool_results": results, "body": body}
        )

        model = body.get("model", "claude-mock")
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            message = {"id": "msg_mock", "type": "message", "role": "assistant", "model": model,
                       "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}
            self.reply(200, "application/json", json.dumps(message).encode())
            return

        events = [{"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
                   "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": dict(usage, output_tokens=1)}}]
        for index, block in enumerate(blocks):
            if block["type"] == "tool_use":
                start = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
            events.append({"type": "content_block_stop", "index": index})
        events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                       "usage": {"output_tokens": 5}})
        events.append({"type": "message_stop"})
        self.reply(200, "text/event-stream", sse(events))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", default="", help="the Bash command of the scripted tool call")
    parser.add_argument("--tool-calls", help="a JSON file: the list of tool calls to script, in order")
    parser.add_argument("--log", required=True, help="JSONL file that receives one line per request")
    parser.add_argument("--ready-file", required=True, help="written with the port once listening")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-tool-calls", type=int, default=3,
                        help="after this many scripted tool calls, always answer with the final text")
    parser.add_argument("--final-text", default="Done: the scripted command was handled.")
    opts = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
    server.daemon_threads = True
    server.opts = opts
    server.tool_calls = 0
    server.script = None
    if opts.tool_calls:
        with open(opts.tool_calls, encoding="utf-8") as script:
            server.script = json.load(script)
    with open(opts.ready_file + ".tmp", "w", encoding="utf-8") as ready:
        ready.write(str(server.server_address[1]))

    os.replace(opts.ready_file + ".tmp", opts.ready_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
