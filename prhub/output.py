"""Writing command output to ``--out``: whole or not at all, without clobbering what is there.

A regular file (new or existing) is replaced atomically: the data goes to a temporary file in the
same directory, which takes the existing file's permissions (a new file gets 0666 minus the umask)
and is renamed over it; the temporary file is removed on any failure. A symlink is followed (its
target is written, the link stays); a device or pipe (``/dev/null``, ``/dev/stdout``) is written
in place, never replaced.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from chatbot.errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_file(out: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``out``.

    Raises:
        InputError: the directory does not exist, ``out`` is a directory, or writing failed (the
            previous content of ``out`` is then unchanged).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(os.path.realpath(out))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"--out {out}: is a directory: give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:  # a device or a pipe: write into it
            with open(target, "wb") as fh:
                fh.write(raw)
        except OSError as exc:
            raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
        return
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"--out {out}: directory {parent} does not exist: create it first")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
