"""The shapes each API takes a tool definition in, for every tool of ours."""

from __future__ import annotations

from typing import Any, Protocol

FLAVORS = "openai, openai-responses, anthropic or mcp"


class AgentTool(Protocol):
    """What a host (and `recall mcp`) needs of a tool: its definition and `call`, which takes a
    model's raw JSON arguments and answers with text (a bad argument: one `error:` line)."""

    name: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, Any]

    def call(self, arguments: object) -> str: ...


def tool_spec(tool: AgentTool, flavor: str) -> dict[str, Any]:
    """The definition of `tool` each API accepts (tests/test_tool.py names the sources)."""
    about: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if flavor == "openai":  # Chat Completions: the function nested under "function"
        return {"type": "function", "function": {**about, "parameters": tool.parameters}}
    if flavor == "openai-responses":  # flat; `strict` defaults to true there, and strict
        # mode wants every property required, so a schema with optional ones opts out.
        return {"type": "function", **about, "parameters": tool.parameters, "strict": False}
    if flavor == "anthropic":
        return {**about, "input_schema": tool.parameters}
    if flavor == "mcp":
        return {**about, "inputSchema": tool.parameters, "annotations": tool.annotations}
    raise ValueError(f"unknown flavor {flavor!r}: {FLAVORS}")
