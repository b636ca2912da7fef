"""`recall mcp`: the recall_history tool on a stdio MCP server (the `mcp` SDK 2.x `MCPServer`).

The tool is registered with the SDK (so `tools/list` carries its annotations) but validates its
own arguments: the advertised `inputSchema` is `RecallHistoryTool.parameters`, and the function
reads the call's raw arguments, so a bad one gets the tool's `error:` line as an `isError`
result, exactly as `RecallHistoryTool.call` words it, instead of the SDK's pydantic message.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from history.index import history_for
from history.tools.recall_history import MCP_ANNOTATIONS, RecallHistoryTool

INSTRUCTIONS = (
    "recall_history searches this project's earlier coding turns (asked, answered, files read "
    "and edited), including turns trimmed out of the conversation. Read-only."
)


def build_server(tool: RecallHistoryTool) -> MCPServer[Any]:
    """An MCP server exposing `tool` as its one read-only tool."""

    def recall_history(ctx: Context) -> CallToolResult:
        params = ctx.request_context.params or {}
        text = tool.call(params.get("arguments") or {})
        return CallToolResult(
            content=[TextContent(type="text", text=text)], is_error=text.startswith("error: ")
        )

    registered = Tool.from_function(
        recall_history,
        name=tool.name,
        title=str(MCP_ANNOTATIONS["title"]),
        description=tool.description,
        annotations=ToolAnnotations.model_validate(MCP_ANNOTATIONS),
        structured_output=False,
    )
    # The function declares only `ctx`, so the SDK's argument model is empty and lets every
    # argument through untouched; the schema a client sees is the tool's own.
    registered.parameters = dict(tool.parameters)
    return MCPServer(
        "recall-history", instructions=INSTRUCTIONS, tools=[registered], log_level="WARNING"
    )


def main(project: str | None = None, home: str | None = None) -> None:
    """Serve recall_history on stdio over `<home>/history.db` ($RECALL_HOME or ~/.recall)."""
    index = history_for(home)
    try:
        build_server(RecallHistoryTool(index, project or os.getcwd())).run("stdio")
    finally:
        index.close()


def _parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m history.mcp_server", description="recall_history over MCP on stdio"
    )
    parser.add_argument("--project", help="workspace path (default: the current directory)")
    parser.add_argument("--home", help="index home (default: $RECALL_HOME or ~/.recall)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _parse()
    main(arguments.project, arguments.home)
