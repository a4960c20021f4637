#!/usr/bin/env python3
"""Scripted OpenAI API mock for the Codex, Copilot CLI, Qwen Code and OpenCode end-to-end tests.

Serves, on loopback, the Responses API (`POST …/responses`, SSE; Codex) and the Chat
Completions API (`POST …/chat/completions`, streamed or not; the others). The script has two
steps, chosen by what the request carries rather than by a counter:

  * a request that holds a tool result (a `function_call_output` item, or a `tool` message),
    or any request once `--max-tool-calls` calls were scripted, gets the final text;
  * any other request that offers a shell tool gets one call of it, with the command under
    test in the argument shape that tool declares;
  * anything else (titles, summaries) gets a short text.

With `--tool-calls FILE` (a JSON list of `{"name", "type": "custom" | "function", "input"}`)
the Responses script is that sequence instead: a request that offers tools and carries N tool
results gets call N+1 (call id `call_mock_0<N+1>`; a `custom` call carries `input` as its
freeform text, Codex's `apply_patch`), and once every call has its result, the final text.
Chat Completions requests follow the same script, each call a function call.

Every request is appended to `--log` as one JSON line: method, path, which answer it got,
every tool result (`call_id` and `content` text), and the full body. Stdlib only.
"""

import json
import sys
import time

import mock_server
from mock_server import AUX, FINAL, LOG_LOCK, SHELL, MockHandler, next_answer, sse

# The id of the scripted call in a Chat Completions answer.
TOOL_CALL_ID = "call_mock_01"


def call_outputs(body):
    """Returns every function_call_output item of the request, in order."""
    found = []
    for item in body.get("input", []) or []:
        if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if not isinstance(output, str):
                output = json.dumps(output)
            found.append({"call_id": item.get("call_id"), "content": output})
    return found


def shell_call(tools, command):
    """Picks the shell tool the request offers and builds its arguments.

    Returns (tool name, arguments JSON string) or None.
    """
    by_name = {}
    for tool in tools or []:
        if isinstance(tool, dict) and tool.get("type") == "function":
            by_name[tool.get("name")] = tool
    if "shell_command" in by_name:  # {"command": "<script>", "workdir"?, "timeout_ms"?}
        return "shell_command", json.dumps({"command": command})
    if "exec_command" in by_name:  # unified exec: {"cmd": "<script>", ...}
        return "exec_command", json.dumps({"cmd": command})
    if "shell" in by_name:  # {"command": ["bash", "-lc", "<script>"]}
        return "shell", json.dumps({"command": ["bash", "-lc", command]})
    return None


# Chat Completions shell tools, by name: Copilot CLI and OpenCode call theirs `bash`, Qwen Code
# (a Gemini CLI fork) `run_shell_command`.
CHAT_SHELL_TOOLS = ("bash", "run_shell_command", "shell")


def text_of(content):
    """Flattens a chat message `content` (a string or a list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") if isinstance(part, dict) and "text" in part else json.dumps(part)
            for part in content
        )
    return json.dumps(content)


def chat_tool_results(body):
    """Returns every `tool` message of a chat request, in order."""
    return [
        {"call_id": message.get("tool_call_id"), "content": text_of(message.get("content"))}
        for message in body.get("messages", []) or []
        if isinstance(message, dict) and message.get("role") == "tool"
    ]


def chat_shell_call(tools, command):
    """Picks the chat shell tool the request offers and builds its arguments: the command,
    plus a filler for every other required property. Returns (name, arguments JSON) or None."""
    by_name = {}
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            by_name[function.get("name")] = function
    for name in CHAT_SHELL_TOOLS:
        if name not in by_name:
            continue
        schema = by_name[name].get("parameters") or {}
        props = schema.get("properties") or {}
        args = {"command": command}
        for key in schema.get("required") or []:
            if key in args:
                continue
            kind = (props.get(key) or {}).get("type")
            args[key] = False if kind == "boolean" else 1000 if kind in ("number", "integer") else "scripted by the mock"
        return name, json.dumps(args)
    return None


def output_message(resp_id, text):
    """A Responses output item: the assistant's message `text`."""
    return {"type": "message", "role": "assistant", "id": "msg_" + resp_id, "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


class Handler(MockHandler):
    server_version = "mock-openai/1"

    def do_GET(self):  # noqa: N802
        if self.route().endswith("/models"):
            self.record({"method": "GET", "path": self.path, "answer": "models"})
            self.reply(200, "application/json", b'{"object":"list","data":[],"models":[]}')
        else:
            self.not_found("GET")

    def do_POST(self):  # noqa: N802
        body = self.read_body()
        if self.headers.get("content-encoding", "").lower() == "zstd":
            body = {"unparsed": "zstd body"}
        path = self.route()
        opts = self.server.opts
        if path.endswith("/chat/completions"):
            self.chat(body)
            return
        if not path.endswith("/responses"):
            self.not_found("POST", body)
            return

        outputs = call_outputs(body)
        self.server.requests += 1
        resp_id = "resp_mock_%02d" % self.server.requests
        call = shell_call(body.get("tools"), opts.command)
        step = next_answer(self.server, outputs, body, call is not None)
        if step == FINAL:
            answer = FINAL
            item = output_message(resp_id, opts.final_text)
        elif step == SHELL:
            self.server.tool_calls += 1
            answer = "tool_call:" + call[0]
            item = {"type": "function_call", "id": "fc_" + resp_id, "status": "completed",
                    "call_id": "call_mock_%02d" % self.server.tool_calls, "name": call[0], "arguments": call[1]}
        elif step == AUX:
            answer = AUX
            item = output_message(resp_id, "ok")
        else:
            scripted = self.server.script[step]
            call_id = "call_mock_%02d" % (step + 1)
            answer = "tool_call:" + scripted["name"]
            if scripted.get("type") == "custom":
                item = {"type": "custom_tool_call", "id": "ctc_" + resp_id, "status": "completed",
                        "call_id": call_id, "name": scripted["name"], "input": scripted["input"]}
            else:
                item = {"type": "function_call", "id": "fc_" + resp_id, "status": "completed",
                        "call_id": call_id, "name": scripted["name"],
                        "arguments": json.dumps(scripted["input"])}
        self.record({"method": "POST", "path": self.path, "answer": answer, "tool_results": outputs, "body": body})

        usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                 "output_tokens_details": None, "total_tokens": 15}
        added = dict(item)
        if item["type"] == "message":
            added["content"] = []
            added["status"] = "in_progress"
        events = [
            {"type": "response.created", "response": {"id": resp_id}},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"id": resp_id, "usage": usage}},
        ]
        self.reply(200, "text/event-stream", sse(events))


    def chat(self, body):
        """Answers a Chat Completions request (streamed when it asks for a stream)."""
        opts = self.server.opts
        results = chat_tool_results(body)
        shell = chat_shell_call(body.get("tools"), opts.command)
        with LOG_LOCK:
            self.server.requests += 1
            number = self.server.requests
            # With a script, the Responses script read as function calls: call N+1 after N
            # tool results.
            step = next_answer(self.server, results, body, shell is not None)
            if step == SHELL:
                self.server.tool_calls += 1
        if step == FINAL:
            answer, message = FINAL, {"role": "assistant", "content": opts.final_text}
        elif step == AUX:
            answer, message = AUX, {"role": "assistant", "content": "ok"}
        else:
            if step == SHELL:
                call = (shell[0], shell[1], TOOL_CALL_ID)
            else:
                scripted = self.server.script[step]
                call = (scripted["name"], json.dumps(scripted["input"]), "call_mock_%02d" % (step + 1))
            answer = "tool_call:" + call[0]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": call[2], "type": "function",
                 "function": {"name": call[0], "arguments": call[1]}}]}
        self.record({"method": "POST", "path": self.path, "answer": answer, "tool_results": results, "body": body})

        finish = "tool_calls" if "tool_calls" in message else "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        base = {"id": "chatcmpl-mock-%02d" % number, "created": int(time.time()), "model": body.get("model") or "mock-model"}
        if not body.get("stream"):
            reply = dict(base, object="chat.completion", usage=usage,
                         choices=[{"index": 0, "message": message, "finish_reason": finish}])
            self.reply(200, "application/json", json.dumps(reply).encode())
            return
        chunk = dict(base, object="chat.completion.chunk")
        delta = {"role": "assistant", "content": message.get("content") or ""}
        if "tool_calls" in message:
            delta["tool_calls"] = message["tool_calls"]
        chunks = [
            dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
            dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]),
            dict(chunk, choices=[], usage=usage),
        ]
        payload = "".join("data: %s\n\n" % json.dumps(c) for c in chunks) + "data: [DONE]\n\n"
        self.reply(200, "text/event-stream", payload.encode())


if __name__ == "__main__":
    sys.exit(mock_server.main(
        __doc__, Handler, command_help="the shell command of the scripted tool call",
        tool_calls_help="the list of tool calls to script, in order (Responses, or Chat Completions function calls)",
    ))
