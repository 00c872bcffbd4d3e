from __future__ import annotations

import graph_memory


def test_all_exports_exist_and_are_public() -> None:
    for name in graph_memory.__all__:
        assert hasattr(graph_memory, name), name
    public = {n for n in dir(graph_memory) if not n.startswith("_")}
    exported_objects = {
        n for n in public if not isinstance(getattr(graph_memory, n), type(graph_memory))
    }
    assert exported_objects - {"annotations"} <= set(graph_memory.__all__)
