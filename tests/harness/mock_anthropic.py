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

import json
import sys

import mock_server
from mock_server import AUX, FINAL, SHELL, MockHandler, next_answer, sse


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


class Handler(MockHandler):
    server_version = "mock-anthropic/1"
    extra_headers = (("request-id", "req_mock"),)
    not_found_body = b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}'

    def do_GET(self):  # noqa: N802 (http.server naming)
        self.not_found("GET")

    def do_HEAD(self):  # noqa: N802
        self.record({"method": "HEAD", "path": self.path, "answer": "200"})
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):  # noqa: N802
        body = self.read_body()
        path = self.route()
        opts = self.server.opts

        if path.endswith("/count_tokens"):
            self.record({"method": "POST", "path": self.path, "answer": "count_tokens"})
            self.reply(200, "application/json", b'{"input_tokens": 100}')
            return
        if not path.endswith("/v1/messages"):
            self.not_found("POST", body)
            return

        results = tool_results(body)
        step = next_answer(self.server, results, body, offers_bash(body))
        if step == FINAL:
            answer, blocks, stop = FINAL, [{"type": "text", "text": opts.final_text}], "end_turn"
        elif step == SHELL:
            self.server.tool_calls += 1
            tool_id = "toolu_mock_%02d" % self.server.tool_calls
            blocks = [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": opts.command, "description": "scripted by the mock"}}]
            answer, stop = "tool_use", "tool_use"
        elif step == AUX:
            answer, blocks, stop = AUX, [{"type": "text", "text": "ok"}], "end_turn"
        else:
            call = self.server.script[step]
            tool_id = "toolu_mock_%02d" % (step + 1)
            blocks = [{"type": "tool_use", "id": tool_id, "name": call["name"], "input": call["input"]}]
            answer, stop = "tool_use:" + call["name"], "tool_use"

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


if __name__ == "__main__":
    sys.exit(mock_server.main(__doc__, Handler, command_help="the Bash command of the scripted tool call"))
