#!/usr/bin/env python3
"""A stdio MCP server written by hand, speaking JSON-RPC 2.0 one message a
line, without any MCP library: it proves glassbox talks to servers written
in other languages. Tools: echo (returns its text), env (lists the names of
its environment variables), fail (returns isError), crash (exits at once),
garbage (answers with a line that is not JSON), hang (never answers)."""
import json
import os
import sys
import time

TOOLS = [
    {"name": "echo", "description": "Say the text back.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "what to say"}},
                     "required": ["text"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "env", "description": "List the names of the server's environment variables.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "fail", "description": "Always fails.", "inputSchema": {"type": "object"}},
    {"name": "crash", "description": "Exits without answering.", "inputSchema": {"type": "object"}},
    {"name": "garbage", "description": "Answers with something that is not JSON-RPC.", "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}},
]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def text(s, is_error=False):
    return {"content": [{"type": "text", "text": s}], "isError": is_error}


for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue  # a notification (notifications/initialized)
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        args = msg["params"].get("arguments") or {}
        if name == "echo":
            send({"jsonrpc": "2.0", "id": mid, "result": text("echo: " + args.get("text", ""))})
        elif name == "env":
            send({"jsonrpc": "2.0", "id": mid, "result": text(" ".join(sorted(os.environ)))})
        elif name == "fail":
            send({"jsonrpc": "2.0", "id": mid, "result": text("the notes are locked", True)})
        elif name == "crash":
            sys.stderr.write("notes server: crashing on purpose\n")
            sys.exit(3)
        elif name == "garbage":
            sys.stdout.write("this is not JSON-RPC\n")
            sys.stdout.flush()
        elif name == "hang":
            time.sleep(3600)
        else:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "no tool " + name}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no method " + method}})
