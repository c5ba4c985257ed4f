"""Ask `pms serve` (through the official MCP Python SDK) a question whose
words are not in the answer; print the tool's text.

usage: semantic.py PMS_BINARY WORKSPACE QUERY
"""
import asyncio
import sys

from mcp import Client, StdioServerParameters

PMS, WORKSPACE, QUERY = sys.argv[1], sys.argv[2], sys.argv[3]


async def main():
    params = StdioServerParameters(command=PMS, args=["serve", "--workspace", WORKSPACE])
    async with Client(params, read_timeout_seconds=30) as client:
        r = await client.call_tool("memory_search", {"query": QUERY, "limit": 3})
        print("ERROR" if r.is_error else "OK")
        print("\n".join(getattr(c, "text", "") for c in r.content))


asyncio.run(main())
