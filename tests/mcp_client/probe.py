"""Drive `pms serve` with the official MCP Python SDK (a client we did not write).

usage: probe.py PMS_BINARY WORKSPACE MODE
MODE is "auto" (the 2026-07-28 server/discover probe) or "legacy" (initialize handshake).
Prints one JSON object with what it saw; exits 1 on the first failed expectation.
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters

PMS, WORKSPACE, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
report = {"mode": MODE, "checks": []}


def check(name, ok, detail=""):
    report["checks"].append({"name": name, "ok": bool(ok), "detail": str(detail)[:500]})
    if not ok:
        print(json.dumps(report, ensure_ascii=False))
        sys.exit(1)


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main():
    params = StdioServerParameters(command=PMS, args=["serve", "--workspace", WORKSPACE])
    async with Client(params, mode=MODE, read_timeout_seconds=20) as client:
        report["protocol_version"] = client.protocol_version
        report["server_name"] = client.server_info.name if client.server_info else None
        check("instructions mention memory_search", "memory_search" in (client.instructions or ""))

        tools = (await client.list_tools()).tools
        names = sorted(t.name for t in tools)
        report["tools"] = names
        check("the memory and lessons tools", names == ["lessons_pending", "lessons_promote", "lessons_reject", "memory_get", "memory_save", "memory_search", "memory_search_context", "memory_timeline"], names)
        for t in tools:
            check(f"{t.name} has an object schema", t.input_schema.get("type") == "object", t.input_schema)

        r = await client.call_tool("memory_search", {"query": "shard billing tenant", "limit": 5})
        out = text_of(r)
        check("memory_search finds the conversation", not r.is_error and "cc://-home-u-app/s1.jsonl" in out, out)

        r = await client.call_tool("memory_search", {"query": "数据库"})
        check("memory_search finds Chinese", not r.is_error and "s1.jsonl" in text_of(r), text_of(r))

        r = await client.call_tool(
            "memory_search_context", {"source": "cc://-home-u-app/s1.jsonl", "query": "database"}
        )
        check("memory_search_context looks inside one conversation", not r.is_error and "lines 2-2" in text_of(r), text_of(r))

        r = await client.call_tool("memory_get", {"path": "cc://-home-u-app/s1.jsonl", "from": 1, "lines": 2})
        out = text_of(r)
        check("memory_get renders the conversation", not r.is_error and "[L1]" in out and "user:" in out, out)

        r = await client.call_tool("memory_get", {"path": "_me/profile.md", "lines": 3})
        check("memory_get reads a workspace file", not r.is_error and "│ # Profile" in text_of(r), text_of(r))

        # Hostile arguments: each is refused or bounded, never served or crashing.
        for path in ["../../../etc/passwd", "/etc/passwd", "cc://../../etc/passwd", ".pms/install.json",
                     "cc://-home-u-app/../../../../etc/passwd", "_me\x00/profile.md"]:
            r = await client.call_tool("memory_get", {"path": path})
            check(f"memory_get refuses {path!r}", r.is_error and "root:" not in text_of(r), text_of(r))
        r = await client.call_tool("memory_get", {"path": "_me/profile.md", "from": -5, "lines": 10**12})
        check("absurd ranges are bounded", True if r.is_error else len(text_of(r)) < 50_000, text_of(r)[:200])
        for q in ['" OR *', "NEAR(a b)", "col:x AND", "x" * 100_000, ""]:
            r = await client.call_tool("memory_search", {"query": q, "limit": 10**9})
            check(f"hostile query {q[:20]!r} is answered", len(text_of(r)) < 100_000, text_of(r)[:200])
        r = await client.call_tool("memory_search", {"query": "billing", "source": "emails"})
        check("unknown source is a tool error", r.is_error and "unknown source" in text_of(r), text_of(r))
        r = await client.call_tool("memory_search_context", {"source": "/etc/passwd", "query": "root"})
        check("memory_search_context refuses escapes", r.is_error, text_of(r))

        r = await client.call_tool("memory_timeline", {"around": "2026-11-01", "days": 3})
        out = text_of(r)
        check("memory_timeline lists the session by day", not r.is_error and "2026-11-01" in out and "cc://-home-u-app/s1.jsonl" in out and "shard the billing" in out, out)
        r = await client.call_tool("memory_timeline", {"around": "cc://-home-u-app/s1.jsonl"})
        check("memory_timeline centres on a hit", not r.is_error and "s1.jsonl" in text_of(r), text_of(r))
        r = await client.call_tool("memory_timeline", {"around": "someday"})
        check("memory_timeline refuses a bad date", r.is_error, text_of(r))

        secret = "sk-ant-api03-" + "Q" * 90
        r = await client.call_tool("memory_save", {"title": "Billing shard decision", "text": f"Shard by tenant id (decided today). token {secret}", "domain": "product"})
        out = text_of(r)
        check("memory_save saves into the domain's projects folder", not r.is_error and "product/projects/" in out, out)
        r2 = await client.call_tool("memory_save", {"title": "Billing shard decision", "text": "A second note, same title."})
        check("a second note never overwrites the first", not r2.is_error and "notes/" in text_of(r2), text_of(r2))
        r = await client.call_tool("memory_search", {"query": "shard tenant decided"})
        check("the saved note is searchable at once", "product/projects/" in text_of(r), text_of(r))
        saved = [line.split()[1] for line in out.splitlines() if line.startswith("Saved")][0]
        r = await client.call_tool("memory_get", {"path": saved})
        check("the saved note has front matter and no secret", "saved_by:" in text_of(r) and secret not in text_of(r), text_of(r))
        r = await client.call_tool("memory_save", {"title": "x", "text": "y", "domain": "astrology"})
        check("memory_save refuses an unknown domain", r.is_error, text_of(r))

        try:
            r = await client.call_tool("memory_search", {"limit": 3})
            check("a missing required argument is an error", r.is_error, text_of(r))
        except Exception as e:  # a protocol error is also acceptable
            check("a missing required argument is an error", True, e)
        try:
            r = await client.call_tool("no_such_tool", {})
            check("an unknown tool is an error", r.is_error, text_of(r))
        except Exception as e:
            check("an unknown tool is an error", True, e)

    print(json.dumps(report, ensure_ascii=False))


asyncio.run(main())
