"""The shapes each API takes a tool definition in, for every tool of ours."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from history.i18n import Messages
from history.projects import project_key
from history.tools.arguments import BadArgument, present

if TYPE_CHECKING:
    from history.index import HistoryIndex

FLAVORS = "openai, openai-responses, anthropic or mcp"


class ToolDefinition(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, Any]


class AgentTool(ToolDefinition, Protocol):
    """What a host (and `recall mcp`) needs of a tool: its definition and `call`, which takes a
    model's raw JSON arguments and answers with text (a bad argument: one `error:` line)."""

    def call(self, arguments: object) -> str: ...


def tool_spec(tool: ToolDefinition, flavor: str) -> dict[str, Any]:
    """The definition of `tool` each API accepts (tests/integration/both/test_tool.py names
    the sources)."""
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


def translated_parameters(parameters: dict[str, Any], _: Messages) -> dict[str, Any]:
    """A JSON schema with each property's description in `_`'s language; names stay."""
    properties = {
        name: {**spec, "description": _(spec["description"])}
        for name, spec in parameters["properties"].items()
    }
    return {**parameters, "properties": properties}


def read_only_annotations(title: str) -> dict[str, Any]:
    """MCP's hints for a tool that only reads the index."""
    return {
        "title": title,
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


class IndexTool:
    """A read-only tool over the index, answering the agent of one project in one of the ten
    languages (history.i18n; an unknown one is English): its description, its parameters'
    descriptions and everything it answers. Its name, its parameter names and the stored text
    stay as they are. `call` checks what any call must be and hands the arguments given to the
    tool's `run`, by name."""

    name: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, Any]
    example: str  # an arguments object, for the error that wants one
    missing: str  # what to pass when the required argument is missing (English, N_ marked)
    read_only = True

    def __init__(self, index: HistoryIndex, project: str, language: str | None = "en") -> None:
        self.index = index
        self.project = project_key(project)
        self._ = Messages("tool", language)
        self.language = self._.language
        # The class holds the English definition; an instance speaks its language.
        self.description = self._(type(self).description)
        self.parameters = translated_parameters(type(self).parameters, self._)
        self.annotations = {**type(self).annotations, "title": self._(self.annotations["title"])}

    def spec(self, flavor: str) -> dict[str, Any]:
        """The tool definition each API accepts: openai, openai-responses, anthropic or mcp."""
        return tool_spec(self, flavor)

    def call(self, arguments: object) -> str:
        """Run with the raw JSON arguments of a tool call; bad ones get one `error:` line."""
        try:
            given = present(
                arguments,
                self.parameters,
                self.example,
                self._(self.missing, example=self.example),
                self._,
            )
        except BadArgument as bad:
            return f"error: {bad}"
        return self.run(**given)

    def run(self, *args: Any, **kwargs: Any) -> str:
        raise NotImplementedError
