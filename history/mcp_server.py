"""`recall mcp`: the recall_history and recall_turn tools on a stdio MCP server (the `mcp` SDK
2.x `MCPServer`), both read-only.

Each tool is registered with the SDK (so `tools/list` carries its annotations) but validates its
own arguments: the advertised `inputSchema` is the tool's `parameters`, and the function reads
the call's raw arguments, so a bad one gets the tool's `error:` line as an `isError` result,
exactly as the tool's `call` words it, instead of the SDK's pydantic message.
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
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from history.tools.spec import AgentTool

INSTRUCTIONS = (
    "recall_history searches this project's earlier coding turns (asked, answered, files read "
    "and edited), including turns trimmed out of the conversation; recall_turn reads one of the "
    "turns it found in full, with the turns around it. Read-only."
)


def _registered(tool: AgentTool) -> Tool:
    def run(ctx: Context) -> CallToolResult:
        params = ctx.request_context.params or {}
        text = tool.call(params.get("arguments") or {})
        return CallToolResult(
            content=[TextContent(type="text", text=text)], is_error=text.startswith("error: ")
        )

    registered = Tool.from_function(
        run,
        name=tool.name,
        title=str(tool.annotations["title"]),
        description=tool.description,
        annotations=ToolAnnotations.model_validate(tool.annotations),
        structured_output=False,
    )
    # The function declares only `ctx`, so the SDK's argument model is empty and lets every
    # argument through untouched; the schema a client sees is the tool's own.
    registered.parameters = dict(tool.parameters)
    return registered


def build_server(tools: Sequence[AgentTool]) -> MCPServer[Any]:
    """An MCP server exposing `tools`, read-only ones."""
    return MCPServer(
        "recall-history",
        instructions=INSTRUCTIONS,
        tools=[_registered(tool) for tool in tools],
        log_level="WARNING",
    )


def main(
    project: str | None = None, home: str | None = None, database_url: str | None = None
) -> None:
    """Serve recall_history and recall_turn on stdio over `<home>/history.db` ($RECALL_HOME or
    ~/.recall), or over the PostgreSQL database at `database_url` ($RECALL_DATABASE_URL)."""
    index = history_for(home, database_url)
    here = project or os.getcwd()
    try:
        build_server([RecallHistoryTool(index, here), RecallTurnTool(index, here)]).run("stdio")
    finally:
        index.close()


def _parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m history.mcp_server",
        description="recall_history and recall_turn over MCP on stdio",
    )
    parser.add_argument("--project", help="workspace path (default: the current directory)")
    parser.add_argument("--home", help="index home (default: $RECALL_HOME or ~/.recall)")
    parser.add_argument("--database-url", help="a PostgreSQL URL (default $RECALL_DATABASE_URL)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _parse()
    main(arguments.project, arguments.home, arguments.database_url)
