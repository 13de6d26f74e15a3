"""The repo's structure: no import circle among the modules of ``services/`` and ``shared/`` (function-level
and TYPE_CHECKING imports included), and no builtin ``print`` in them. The checkers are proven on small trees
written here whose circles are known by construction."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.layout.import_graph import ImportLine, build, circle_lines, circles, print_calls, report

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("services", "shared")


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_no_import_circle_in_services_or_shared() -> None:
    graph = build(REPO, PACKAGES)
    assert len(graph.modules) == sum(1 for p in PACKAGES for _ in (REPO / p).rglob("*.py"))
    assert report(graph) == ""


def test_no_builtin_print_in_services_or_shared() -> None:
    assert print_calls(REPO, PACKAGES) == []


def test_a_circle_through_function_level_type_checking_and_submodule_imports_is_named(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import os\nfrom pkg import b\n",
            "pkg/b.py": "def f():\n    from . import c\n    return c\n",
            "pkg/c.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"),
            "pkg/d.py": "from pkg.a import thing\n",
        },
    )
    graph = build(root, ("pkg",))
    assert sorted(graph.modules) == ["pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"]
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert circle_lines(graph, ["pkg.a", "pkg.b", "pkg.c"]) == [
        ImportLine("pkg/a.py", 2, "from pkg import b"),
        ImportLine("pkg/b.py", 2, "from . import c"),
        ImportLine("pkg/c.py", 3, "import pkg.a"),
    ]
    assert graph.targets("pkg.d") == ["pkg.a"]
    assert report(graph) == (
        "import circle among pkg.a, pkg.b, pkg.c:\n"
        "    pkg/a.py:2: from pkg import b\n"
        "    pkg/b.py:2: from . import c\n"
        "    pkg/c.py:3: import pkg.a"
    )


def test_names_from_a_package_and_parent_relative_imports_make_edges(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "top/__init__.py": "from top.inner.x import VALUE\n",
            "top/inner/__init__.py": "",
            "top/inner/x.py": "from .. import other\nVALUE = 1\n",
            "top/other.py": "",
            "top/inner/y.py": "from .. import VALUE\nfrom .x import VALUE as V\n",
            "top/solo.py": "import top.solo\nimport json\n",
        },
    )
    graph = build(root, ("top",))
    assert graph.targets("top") == ["top.inner.x"]
    assert graph.targets("top.inner.x") == ["top.other"]
    assert graph.targets("top.inner.y") == ["top", "top.inner.x"]
    assert graph.targets("top.solo") == []
    assert circles(graph) == []
    assert report(graph) == ""


def test_two_circles_are_each_named(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/a.py": "from p.b import f\n",
            "p/b.py": "import p.a\n",
            "p/c.py": "import p.b\nimport p.d\n",
            "p/d.py": "def g():\n    import p.c\n",
        },
    )
    graph = build(root, ("p",))
    assert circles(graph) == [["p.a", "p.b"], ["p.c", "p.d"]]
    assert report(graph).count("import circle among") == 2


def test_print_calls_are_found_and_console_print_is_not(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/m.py": "def f(console):\n    console.print('fine')\n    print('not fine')\n",
            "lib/n.py": "print('at import')\n",
        },
    )
    assert print_calls(root, ("lib",)) == ["lib/m.py:3", "lib/n.py:1"]


_ARROW_IO = {"read_table", "read_csv", "ParquetFile", "write_table", "open_csv", "read_json"}


def _python_file_to_arrow(root: Path) -> list[str]:
    """Calls that hand a pyarrow reader or writer an ``io.BytesIO``/``StringIO``: file:line each."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                if node.func.attr not in _ARROW_IO or not node.args:
                    continue
                arg = node.args[0]
                if isinstance(arg, ast.Call) and ast.unparse(arg.func).split(".")[-1] in (
                    "BytesIO",
                    "StringIO",
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_arrow_reads_bytes_through_arrow_buffers_not_python_files() -> None:
    """A process that exits right after pyarrow read a Python file object can abort in Arrow's thread-pool
    teardown ('terminate called without an active exception', apache/arrow#34314 and #50482): CI saw it once
    in the CLI refusing a bundle. Bytes go to pyarrow as ``pa.BufferReader``/``pa.BufferOutputStream``."""
    assert _python_file_to_arrow(REPO) == []


def test_a_python_file_handed_to_arrow_is_found(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "shared/a.py": "import io\nimport pyarrow.parquet as pq\nt = pq.read_table(io.BytesIO(b''))\n",
            "services/b.py": "import pyarrow as pa\nimport pyarrow.parquet as pq\nt = pq.read_table(pa.BufferReader(b''))\n",
        },
    )
    assert _python_file_to_arrow(root) == ["shared/a.py:3"]
