"""Load a plug-in module written by a test (a toy risk rule or intent) from a directory outside the
package, the way a new module would be imported: ``load_module(tmp, "todo_left", SOURCE)``."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType


def load_module(directory: Path, name: str, source: str) -> ModuleType:
    """``source`` (dedented) written to ``directory/<name>.py`` and executed as module ``name``."""
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
