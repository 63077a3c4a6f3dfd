"""Errors a user can act on: they name the file (and line, document id, offsets), never PHI text."""


class UserError(Exception):
    """A problem with the user's input or options; the CLI prints it as one line, exit status 2."""


class FormatError(UserError):
    """A corpus or span file that cannot be read as its format says.

    ``path`` and ``line`` (1-based, when known) are kept as attributes and put in the message.
    """

    def __init__(self, path, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class ParameterError(UserError, ValueError):
    """An estimator parameter outside its range: a ValueError, as scikit-learn's contract
    asks of ``fit``, and a :class:`UserError`, so the CLI prints it as one line (an option the
    command line passes on unchecked, such as ``itdeid cv --negative-rate 0``). Each message
    starts with the parameter's name, kept as ``parameter`` for the CLI to name its option."""

    def __init__(self, message: str):
        super().__init__(message)
        self.parameter = message.split(" ", 1)[0]


def printable(message: str) -> str:
    """``message`` with control characters escaped (``\\n`` as ``\\x0a``, ESC as ``\\x1b``): a file
    name may hold them, and printed raw a newline forges another line of the log ('failed: ...')
    and an escape sequence drives the terminal."""
    return "".join(c if c.isprintable() or c == "\t" else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in message)
