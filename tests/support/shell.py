"""A shell command line as the words a program receives: up to a redirection or a pipe."""

import shlex


def command_words(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = list(lexer)
    return words[: next((i for i, w in enumerate(words) if w in (">", ">>", "|", "<")), len(words))]
