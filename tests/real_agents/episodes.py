"""The episodes each agent plays, in its own tool vocabulary: one story, several variations.

Every turn has fixed, distinct token usage, so each number harborlight reports can be traced to one
response. Paths are absolute in the workspace the run gives. A tool call also says what it does (its
category, the files it touches, whether it fails): that is what harborlight's answers are checked against.
"""

from dataclasses import dataclass, field
from pathlib import Path

from tests.real_agents.providers.script import ToolCall, Turn, Usage, rate_limited

THREE_TURN = "Write hello.txt containing the word hello, read it back, and tell me what it says."
EDIT = "Write hello.txt containing hello, then change hello to goodbye in it, and tell me what it says now."
FAILING = "Run cat missing.txt and tell me what happened."
SUBAGENT = "Ask a sub-agent to read notes.txt and tell me what it says."
ANSWER = "hello.txt says: hello"
EDITED = "hello.txt says: goodbye"
FAILED = "cat failed: missing.txt does not exist."


@dataclass(frozen=True)
class Episode:
    name: str
    prompt: str
    turns: list[Turn]
    files: dict[str, str] = field(default_factory=dict)  # seeded into the workspace

    @property
    def calls(self) -> list[ToolCall]:
        return [call for turn in self.turns for call in turn.calls]

    @property
    def answer(self) -> str:
        return self.turns[-1].text


def _variants(name: str, three_turn: list[Turn], edit: list[Turn], failing: list[Turn]) -> list[Turn]:
    return {
        "three-turn": three_turn,
        "rate-limited": [rate_limited(), *three_turn],
        "edit": edit,
        "failing-command": failing,
    }[name]


def _claude_code(name: str, ws: Path) -> Episode:
    hello = str(ws / "hello.txt")
    write = ToolCall("Write", {"file_path": hello, "content": "hello\n"}, "toolu_01WriteHello", "edit", (hello,))
    first = Turn(
        Usage(input=1101, output=41, cached=2201, cache_write=301),
        "I'll write the file.",
        (write,),
        reasoning="The user wants hello.txt with hello in it.",
    )
    if name == "subagent":
        notes = str(ws / "notes.txt")
        spawn = ToolCall(
            "Agent",
            {
                "description": "Read notes.txt",
                "prompt": "Read notes.txt and report what it says.",
                "subagent_type": "general-purpose",
            },
            "toolu_05SpawnReader",
            "other",
        )
        sub_read = ToolCall("Read", {"file_path": notes}, "toolu_06SubReadNotes", "read", (notes,))
        return Episode(
            name,
            SUBAGENT,
            [
                Turn(Usage(input=1131, output=71, cached=2231, cache_write=331), "I'll ask a sub-agent.", (spawn,)),
                Turn(Usage(input=1232, output=32, cached=2332, cache_write=432), calls=(sub_read,), subagent=True),
                Turn(
                    Usage(input=1333, output=33, cached=2433, cache_write=533),
                    "notes.txt says: buy milk",
                    subagent=True,
                ),
                Turn(
                    Usage(input=1434, output=34, cached=2534, cache_write=634),
                    "The sub-agent says notes.txt says: buy milk",
                ),
            ],
            files={"notes.txt": "buy milk\n"},
        )
    read = ToolCall("Read", {"file_path": hello}, "toolu_02ReadHello", "read", (hello,))
    edit = ToolCall(
        "Edit",
        {"file_path": hello, "old_string": "hello", "new_string": "goodbye"},
        "toolu_03EditHello",
        "edit",
        (hello,),
    )
    bash = ToolCall(
        "Bash",
        {"command": "cat missing.txt", "description": "Show missing.txt"},
        "toolu_04CatMissing",
        "execute",
        fails=True,
    )
    turns = _variants(
        name,
        [
            first,
            Turn(Usage(input=1202, output=32, cached=2302, cache_write=402), calls=(read,)),
            Turn(Usage(input=1303, output=23, cached=2403, cache_write=503), ANSWER),
        ],
        [
            first,
            Turn(Usage(input=1212, output=52, cached=2312, cache_write=412), calls=(edit,)),
            Turn(Usage(input=1313, output=13, cached=2413, cache_write=513), EDITED),
        ],
        [
            Turn(Usage(input=1121, output=61, cached=2221, cache_write=321), calls=(bash,)),
            Turn(Usage(input=1222, output=22, cached=2322, cache_write=422), FAILED),
        ],
    )
    return Episode(name, {"edit": EDIT, "failing-command": FAILING}.get(name, THREE_TURN), turns)


def _codex(name: str, ws: Path) -> Episode:
    hello = str(ws / "hello.txt")
    # A command's target is the directory it runs in (workdir): which files it touches is the shell's affair.
    write = ToolCall(
        "exec_command",
        {"cmd": "echo hello > hello.txt", "workdir": str(ws)},
        "call_01WriteHello",
        "execute",
        (str(ws),),
    )
    read = ToolCall(
        "exec_command", {"cmd": "cat hello.txt", "workdir": str(ws)}, "call_02ReadHello", "execute", (str(ws),)
    )
    add = ToolCall(
        "apply_patch",
        "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n",
        "call_03AddHello",
        "edit",
        (hello,),
    )
    update = ToolCall(
        "apply_patch",
        "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+goodbye\n*** End Patch\n",
        "call_04EditHello",
        "edit",
        (hello,),
    )
    cat = ToolCall(
        "exec_command",
        {"cmd": "cat missing.txt", "workdir": str(ws)},
        "call_05CatMissing",
        "execute",
        (str(ws),),
        fails=True,
    )
    turns = _variants(
        name,
        [
            Turn(
                Usage(input=5101, output=47, cached=2101, reasoning=31),
                "I'll write the file.",
                (write,),
                reasoning="The user wants hello.txt with hello in it.",
            ),
            Turn(Usage(input=5202, output=38, cached=2202, reasoning=22), calls=(read,)),
            Turn(Usage(input=5303, output=29, cached=2303, reasoning=13), ANSWER),
        ],
        [
            Turn(Usage(input=5111, output=57, cached=2111, reasoning=41), calls=(add,)),
            Turn(Usage(input=5212, output=58, cached=2212, reasoning=32), calls=(update,)),
            Turn(Usage(input=5313, output=19, cached=2313, reasoning=3), EDITED),
        ],
        [
            Turn(Usage(input=5121, output=67, cached=2121, reasoning=51), calls=(cat,)),
            Turn(Usage(input=5222, output=28, cached=2222, reasoning=2), FAILED),
        ],
    )
    return Episode(name, {"edit": EDIT, "failing-command": FAILING}.get(name, THREE_TURN), turns)


def _gemini_cli(name: str, ws: Path) -> Episode:
    hello = str(ws / "hello.txt")
    write = ToolCall("write_file", {"file_path": hello, "content": "hello\n"}, "call_01WriteHello", "edit", (hello,))
    read = ToolCall("read_file", {"file_path": hello}, "call_02ReadHello", "read", (hello,))
    edit = ToolCall(
        "replace",
        {"file_path": hello, "old_string": "hello", "new_string": "goodbye", "instruction": "Change hello to goodbye."},
        "call_03EditHello",
        "edit",
        (hello,),
    )
    shell = ToolCall(
        "run_shell_command",
        {"command": "cat missing.txt", "description": "Show missing.txt"},
        "call_04CatMissing",
        "execute",
        fails=True,
    )
    first = Turn(
        Usage(input=3101, output=44, cached=1201, reasoning=21),
        "I'll write the file.",
        (write,),
        reasoning="The user wants hello.txt with hello in it.",
    )
    turns = _variants(
        name,
        [
            first,
            Turn(Usage(input=3202, output=35, cached=1302, reasoning=12), calls=(read,)),
            Turn(Usage(input=3303, output=26, cached=1403, reasoning=3), ANSWER),
        ],
        [
            first,
            Turn(Usage(input=3212, output=55, cached=1312, reasoning=15), calls=(edit,)),
            Turn(Usage(input=3313, output=16, cached=1413, reasoning=6), EDITED),
        ],
        [
            Turn(Usage(input=3121, output=64, cached=1221, reasoning=24), calls=(shell,)),
            Turn(Usage(input=3222, output=25, cached=1322, reasoning=5), FAILED),
        ],
    )
    return Episode(name, {"edit": EDIT, "failing-command": FAILING}.get(name, THREE_TURN), turns)


def _qwen_code(name: str, ws: Path) -> Episode:
    hello = str(ws / "hello.txt")
    write = ToolCall("write_file", {"file_path": hello, "content": "hello\n"}, "call_01WriteHello", "edit", (hello,))
    read = ToolCall("read_file", {"file_path": hello}, "call_02ReadHello", "read", (hello,))
    edit = ToolCall(
        "edit",
        {"file_path": hello, "old_string": "hello", "new_string": "goodbye"},
        "call_03EditHello",
        "edit",
        (hello,),
    )
    shell = ToolCall(
        "run_shell_command",
        {"command": "cat missing.txt", "description": "Show missing.txt"},
        "call_04CatMissing",
        "execute",
        fails=True,
    )
    first = Turn(
        Usage(input=4101, output=43, cached=1501, reasoning=23),
        "I'll write the file.",
        (write,),
        reasoning="The user wants hello.txt with hello in it.",
    )
    turns = _variants(
        name,
        [
            first,
            Turn(Usage(input=4202, output=34, cached=1602, reasoning=14), calls=(read,)),
            Turn(Usage(input=4303, output=25, cached=1703, reasoning=5), ANSWER),
        ],
        [
            first,
            Turn(Usage(input=4212, output=54, cached=1612, reasoning=17), calls=(edit,)),
            Turn(Usage(input=4313, output=15, cached=1713, reasoning=7), EDITED),
        ],
        [
            Turn(Usage(input=4121, output=63, cached=1521, reasoning=26), calls=(shell,)),
            Turn(Usage(input=4222, output=24, cached=1622, reasoning=8), FAILED),
        ],
    )
    return Episode(name, {"edit": EDIT, "failing-command": FAILING}.get(name, THREE_TURN), turns)


def _opencode(name: str, ws: Path) -> Episode:
    hello = str(ws / "hello.txt")
    write = ToolCall("write", {"filePath": hello, "content": "hello\n"}, "call_01WriteHello", "edit", (hello,))
    read = ToolCall("read", {"filePath": hello}, "call_02ReadHello", "read", (hello,))
    edit = ToolCall(
        "edit", {"filePath": hello, "oldString": "hello", "newString": "goodbye"}, "call_03EditHello", "edit", (hello,)
    )
    bash = ToolCall(
        "bash",
        {"command": "cat missing.txt", "description": "Show missing.txt"},
        "call_04CatMissing",
        "execute",
        fails=True,
    )
    first = Turn(
        Usage(input=6101, output=46, cached=1801, reasoning=27),
        "I'll write the file.",
        (write,),
        reasoning="The user wants hello.txt with hello in it.",
    )
    turns = _variants(
        name,
        [
            first,
            Turn(Usage(input=6202, output=37, cached=1902, reasoning=18), calls=(read,)),
            Turn(Usage(input=6303, output=28, cached=2003, reasoning=9), ANSWER),
        ],
        [
            first,
            Turn(Usage(input=6212, output=57, cached=1912, reasoning=19), calls=(edit,)),
            Turn(Usage(input=6313, output=18, cached=2013, reasoning=10), EDITED),
        ],
        [
            Turn(Usage(input=6121, output=66, cached=1821, reasoning=29), calls=(bash,)),
            Turn(Usage(input=6222, output=27, cached=1922, reasoning=11), FAILED),
        ],
    )
    return Episode(name, {"edit": EDIT, "failing-command": FAILING}.get(name, THREE_TURN), turns)


_BY_AGENT = {
    "claude-code": _claude_code,
    "codex": _codex,
    "gemini-cli": _gemini_cli,
    "qwen-coder": _qwen_code,
    "opencode": _opencode,
}
_COMMON = ("three-turn", "edit", "failing-command", "rate-limited")
EPISODES = {
    "claude-code": (*_COMMON, "subagent"),
    "codex": _COMMON,
    "gemini-cli": _COMMON,
    "qwen-coder": _COMMON,
    "opencode": _COMMON,
}


def episode(agent: str, name: str, workspace: Path) -> Episode:
    return _BY_AGENT[agent](name, workspace)
