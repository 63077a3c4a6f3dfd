"""Which files a folder holds, and reading one file's bytes: the walk and the read that
``itdeid tag`` and ``itdeid deid`` share, so both see the same files and refuse the same ones.

Every file found is either read or refused with its reason; nothing is dropped without a word.

- Hidden files and folders (a name starting with ``.``) are left out, as ever.
- A symbolic link is followed when its target exists, whether it names a file or a folder; what
  is found through it is named by the link's own path (``notes/latest/a.txt``, not the target's).
- Each folder is walked once (compared by resolved path). A link to a folder of the tree itself
  or one already walked through another link (a cycle such as ``notes/up -> ..``, a shortcut
  ``notes/latest -> 2024-06``) is not walked again: it is returned like a file, and reading it
  fails with that reason, so it is reported and its files are read once, under their real path.
- A dangling link (its target missing, or a loop of links), and anything that is not a regular
  file (a FIFO, a socket, a device), is returned too, and :func:`read_bytes` refuses it with its
  reason without opening it (opening a FIFO would wait for a writer forever).

Every reader of an input opens it through :func:`open_regular` (whole, in :func:`read_bytes`;
a zip archive or the first bytes of a file, elsewhere): its type is checked before it is
opened, and checked again on the open file, so a FIFO put in its place meanwhile is refused
too rather than waited on.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from itdeid.errors import FormatError

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"))


def walk_folder(root) -> list[Path]:
    """Every non-hidden entry under ``root`` that is not a folder to walk, sorted by path as
    found (through links), with the folders and links handled as the module docstring says."""
    return [Path(path) for path in walk_paths(root)]


def walk_paths(root) -> list[str]:
    """:func:`walk_folder`'s entries as strings (``root`` joined with their names). A batch over
    a million files keeps its list of inputs for the whole run, and a ``Path`` an entry cost
    several times the string, its parts interned for good."""
    root = os.fspath(Path(root))
    found: list[str] = []
    # The real folders of the tree count as walked from the start, so a link to one of them is
    # refused whichever of the two sorts first, and its files keep their real paths.
    walked = _real_folders(root)
    # Depth first in name order, with a stack rather than recursion (a tree may be deep):
    # (path, whether to walk it as a folder).
    stack: list[tuple[str, bool]] = [(root, True)]
    while stack:
        folder, walk = stack.pop()
        if not walk:
            found.append(folder)        # a file, or an entry that reading refuses with its reason
            continue
        try:
            with os.scandir(folder) as entries:
                # the entry's own type (no stat call) except for links, which are followed
                kinds = sorted((entry.name, _is_folder(entry), entry.is_symlink())
                               for entry in entries if not entry.name.startswith("."))
        except OSError:
            found.append(folder)        # a folder that cannot be listed: reading says why
            continue
        children = []
        for name, walk, is_link in kinds:
            path = os.path.join(folder, name)
            if walk and is_link:
                target = os.path.realpath(path)
                walk = target not in walked         # else refused when read: walked already
                walked.add(target)
            children.append((path, walk))
        stack += reversed(children)
    return found


def _real_folders(root: str) -> set[str]:
    """The resolved paths of ``root`` and of every non-hidden folder under it reached without a
    link. Walked with a stack, not recursion (``os.walk`` recursed a level a folder: some 1,000
    nested folders stopped the run with a RecursionError), and a folder's resolved path is its
    parent's joined with its name (resolving each anew cost a system call per level)."""
    real = os.path.realpath(root)
    found = {real}
    stack = [(root, real)]
    while stack:
        folder, real = stack.pop()
        try:
            with os.scandir(folder) as entries:
                names = [entry.name for entry in entries
                         if not entry.name.startswith(".") and is_real_folder(entry)]
        except OSError:
            continue                    # the walk reports it as a folder it cannot list
        for name in names:
            found.add(os.path.join(real, name))
            stack.append((os.path.join(folder, name), os.path.join(real, name)))
    return found


def is_real_folder(entry: os.DirEntry) -> bool:
    """Whether a folder entry is a folder itself, not a link to one (as ``os.walk`` walks): the
    input walk and the clean-up of a run's leftovers both follow no link."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_folder(entry: os.DirEntry) -> bool:
    """Whether a folder entry is a folder or a link to one (False when that cannot be told:
    reading the entry then says why)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def why_unreadable(path) -> str | None:
    """Why ``path`` cannot be read as a note file, or None when it is a regular file."""
    return _refusal(Path(path))


def _refusal(path: Path) -> str | None:
    """Why ``path`` cannot be read as a note file, or None when it is a regular file."""
    try:
        info = os.stat(path)                        # follows links
    except FileNotFoundError as error:
        if os.path.islink(path):
            return "broken symbolic link (its target does not exist); not read"
        return f"cannot read: {error.strerror}"
    except OSError as error:
        if os.path.islink(path):
            return f"symbolic link that cannot be followed ({error.strerror}); not read"
        return f"cannot read: {error.strerror}"
    if stat.S_ISDIR(info.st_mode):
        try:
            os.scandir(path).close()
        except OSError as error:
            return f"cannot list this folder ({error.strerror}); its files are not read"
        if not os.path.islink(path):
            return "a folder, not a file"
        return ("a link to a folder that was already read (a cycle of links, or a second link "
                "to one folder); its files are read once, under their first path")
    if not stat.S_ISREG(info.st_mode):
        return _not_regular(info.st_mode)
    return None


def _not_regular(mode: int) -> str:
    """Why a file of ``mode`` (not a regular file) is not read."""
    what = next((name for test, name in _KINDS if test(mode)), "a special file")
    return f"{what}, not a regular file; not read"


def open_regular(path):
    """The regular file ``path`` opened for reading in binary; anything else (see the module
    docstring) is a :class:`FormatError` naming the file and the reason, and is never opened.
    The type is checked before the open, and again on the open file: the open itself does not
    wait (``O_NONBLOCK``), so a FIFO put in the file's place between the two is refused, not
    waited on for a writer that never comes."""
    refusal = _refusal(Path(path))
    if refusal is not None:
        raise FormatError(path, refusal)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise FormatError(path, "a folder, not a file")
        if not stat.S_ISREG(mode):
            raise FormatError(path, _not_regular(mode))
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes(path) -> bytes:
    """The bytes of the regular file ``path``; anything else (see the module docstring) or a
    read error is a :class:`FormatError` naming the file and the reason."""
    with open_regular(path) as handle:
        try:
            return handle.read()
        except OSError as error:
            raise FormatError(path, f"cannot read: {error.strerror}") from None
