"""The package's shape: a handful of modules at the top, the rest in packages by role."""
from pathlib import Path

import itdeid

TOP = {"__init__", "__main__", "errors", "document", "resources", "pipeline"}


def test_only_the_modules_a_reader_needs_first_sit_at_the_top():
    here = Path(itdeid.__file__).resolve().parent
    assert {p.stem for p in here.glob("*.py")} == TOP


def _module_imports() -> dict[str, set[str]]:
    """Each itdeid module and the itdeid modules it imports, at its top or inside a function (a
    lazy import is a circle too, only postponed). The package's own ``__init__`` is left out: it
    is the public front (``itdeid.load_model``, ``__version__``), not a stage of the flow."""
    import ast
    root = Path(itdeid.__file__).resolve().parent
    modules = {("itdeid." + ".".join(p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__"): p
               for p in root.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("itdeid"):
                found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                          for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("itdeid")}
        graph[name] = {m for m in found if m in modules and m not in (name, "itdeid")}
    graph.pop("itdeid")
    return graph


def test_no_module_imports_itself_in_a_circle():
    graph = _module_imports()
    state: dict[str, int] = {}
    circles = []

    def visit(module, path):
        state[module] = 1
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                circles.append(path[path.index(other):] + [other])
            elif other not in state:
                visit(other, path + [other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles[:5])


def test_no_module_is_longer_than_a_reader_can_hold():
    here = Path(itdeid.__file__).resolve().parent
    long = {str(p.relative_to(here)): n for p in here.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"
