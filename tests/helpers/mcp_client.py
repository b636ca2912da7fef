"""What the MCP SDK's client gets back, as text."""

from __future__ import annotations

from mcp_types import CallToolResult, TextContent


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    return result.content[0].text
