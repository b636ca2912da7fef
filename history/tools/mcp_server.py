"""`recall mcp` (history/cli/serving.py parses its options, `python -m history.mcp_server` is
the same command): the recall_history, recall_turn and recall_file tools on a stdio MCP server,
all read-only.

The SDK's low-level server (mcp 2.x), so the server advertises what it serves and nothing
else: tools, under the package's name and version (no prompts, no resources, no list
changes). Each tool validates its own arguments: the advertised `inputSchema` is the tool's
`parameters`, and a call's raw arguments go to the tool's `call`, so a bad one gets the tool's
`error:` line as an `isError` result, exactly as the tool words it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

from history.direct_read import ReadingIndex
from history.i18n import N_, Messages, from_environment
from history.tools.recall_file import RecallFileTool
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from history.tools.spec import AgentTool
from history.version import package_version

if TYPE_CHECKING:
    from history.index import HistoryIndex

NAME = "recall-history"
INSTRUCTIONS = N_(
    "recall_history searches this project's earlier coding turns (asked, answered, files read "
    "and edited), including turns trimmed out of the conversation; recall_turn reads one of the "
    "turns it found in full, with the turns around it; recall_file tells what earlier turns did "
    "to a file, or which turn wrote a line of it, and why. Read-only."
)


def _listed(tool: AgentTool) -> Tool:
    return Tool(
        name=tool.name,
        title=str(tool.annotations["title"]),
        description=tool.description,
        input_schema=dict(tool.parameters),
        annotations=ToolAnnotations.model_validate(tool.annotations),
    )


def build_server(tools: Sequence[AgentTool], language: str | None = "en") -> Server[Any]:
    """An MCP server exposing `tools` and nothing else, its instructions and its own errors in
    `language` (the tools speak theirs)."""
    _ = Messages("tool", language)
    by_name = {tool.name: tool for tool in tools}
    listed = ListToolsResult(tools=[_listed(tool) for tool in tools])

    async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        return listed

    async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:
            text = "error: " + _(
                "no tool is named {name}; this server has {names}.",
                name=repr(params.name),
                names=", ".join(by_name),
            )
        else:  # the index is synchronous: off the event loop
            text = await anyio.to_thread.run_sync(tool.call, params.arguments or {})
        return CallToolResult(
            content=[TextContent(type="text", text=text)], is_error=text.startswith("error: ")
        )

    return Server(
        NAME,
        version=package_version(),
        instructions=_(INSTRUCTIONS),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve(
    project: str | None = None,
    home: str | None = None,
    database_url: str | None = None,
    language: str | None = None,
) -> None:
    """Serve recall_history, recall_turn and recall_file on stdio over `<home>/history.db`
    ($RECALL_HOME or ~/.recall), or over the PostgreSQL database at `database_url`
    ($RECALL_DATABASE_URL), in `language` (else $RECALL_LANGUAGE, else the locale's, else
    English). recall_history searches a current file through the driver alone; the home's
    HistoryIndex is opened when a tool needs more (history/direct_read.py), or at start where
    search by meaning is installed, to embed the turns waiting in the background."""
    from history import meaning

    reading = ReadingIndex(home, database_url)
    if not reading.direct or meaning.installed():
        # A database to make, migrate or reach, or turns to embed: at start, as ever.
        reading.whole().embed_in_background()
    index = cast("HistoryIndex", reading)
    here = project or os.getcwd()
    spoken = language or from_environment()
    try:
        tools = [
            RecallHistoryTool(index, here, spoken),
            RecallTurnTool(index, here, spoken),
            RecallFileTool(index, here, spoken),
        ]
        server = build_server(tools, spoken)
        anyio.run(serve_stdio, server)
    finally:
        index.close()
