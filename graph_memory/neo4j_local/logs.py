"""Reading the server's logs: the tail of a file, and following it as it grows."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["follow", "tail"]

_TAIL_WINDOW = 256 * 1024


def tail(path: Path, lines: int, since: int = 0) -> str:
    """The last ``lines`` lines of ``path`` (ignoring bytes before ``since``).

    Reads only the end of the file: debug.log grows to hundreds of megabytes.
    """
    if lines <= 0:
        return ""
    try:
        with path.open("rb") as f:
            end = f.seek(0, os.SEEK_END)
            f.seek(max(since, end - _TAIL_WINDOW))
            data = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


def follow(
    path: Path,
    write: Callable[[str], object],
    poll: float = 0.5,
    keep_going: Callable[[], bool] = lambda: True,
) -> None:
    """Print what is appended to ``path`` until ``keep_going`` says stop (or Ctrl-C).

    Survives rotation: when the file shrinks or is replaced, reading restarts at its top.
    """
    position = path.stat().st_size if path.exists() else 0
    inode = path.stat().st_ino if path.exists() else None
    while keep_going():
        try:
            st = path.stat()
        except FileNotFoundError:
            time.sleep(poll)
            continue
        if st.st_ino != inode or st.st_size < position:
            inode, position = st.st_ino, 0
        if st.st_size > position:
            with path.open("rb") as f:
                f.seek(position)
                chunk = f.read()
            position += len(chunk)
            write(chunk.decode("utf-8", errors="replace"))
        time.sleep(poll)
