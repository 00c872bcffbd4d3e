from __future__ import annotations

from pathlib import Path

import pytest

from graph_memory.neo4j_local.config import ServerConfig, conf_ports, render_conf, write_conf
from graph_memory.neo4j_local.errors import ConfigError


def _settings(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def test_conf_is_loopback_only_with_explicit_memory_and_gds(tmp_path: Path) -> None:
    cfg = ServerConfig(bolt_port=17687, http_port=17474, heap="1g", pagecache="512m")
    conf = _settings(render_conf(tmp_path, cfg))
    assert conf["server.default_listen_address"] == ["127.0.0.1"]
    assert conf["server.bolt.listen_address"] == [":17687"]
    assert conf["server.http.listen_address"] == [":17474"]
    assert conf["server.https.enabled"] == ["false"]
    assert conf["dbms.security.procedures.unrestricted"] == ["gds.*"]
    assert conf["dbms.usage_report.enabled"] == ["false"]
    # The driver then keeps no per-read timer (the recv-timeout hint is not sent).
    assert conf["server.bolt.connection_keep_alive_for_requests"] == ["OFF"]
    assert conf["server.memory.heap.initial_size"] == conf["server.memory.heap.max_size"] == ["1g"]
    assert conf["server.memory.pagecache.size"] == ["512m"]
    assert conf["server.directories.data"] == [(tmp_path / "data").as_posix()]
    assert conf["server.directories.plugins"] == [(tmp_path / "plugins").as_posix()]
    assert "--add-modules=jdk.incubator.vector" not in conf["server.jvm.additional"]


def test_vector_module_flag_only_for_a_jdk_that_has_it(tmp_path: Path) -> None:
    conf = _settings(render_conf(tmp_path, ServerConfig(vector_module=True)))
    assert "--add-modules=jdk.incubator.vector" in conf["server.jvm.additional"]


def test_memory_and_ports_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_MEMORY_NEO4J_BOLT_PORT", "17687")
    monkeypatch.setenv("GRAPH_MEMORY_NEO4J_HTTP_PORT", "17474")
    env = {"GRAPH_MEMORY_NEO4J_HEAP": "4G", "GRAPH_MEMORY_NEO4J_PAGECACHE": "256m"}
    cfg = ServerConfig.from_env(vector_module=False, env=env)
    assert (cfg.bolt_port, cfg.http_port, cfg.heap, cfg.pagecache) == (17687, 17474, "4g", "256m")
    assert ServerConfig.from_env(vector_module=False, env={}).heap == "2g"


@pytest.mark.parametrize("value", ["lots", "2 g", "0g", "-1g", "1.5g"])
def test_bad_memory_size_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match="GRAPH_MEMORY_NEO4J_HEAP"):
        ServerConfig.from_env(vector_module=False, env={"GRAPH_MEMORY_NEO4J_HEAP": value})


def test_same_port_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_MEMORY_NEO4J_BOLT_PORT", "7474")
    monkeypatch.delenv("GRAPH_MEMORY_NEO4J_HTTP_PORT", raising=False)
    with pytest.raises(ConfigError, match="both 7474"):
        ServerConfig.from_env(vector_module=False, env={})


def test_written_conf_tells_which_ports_the_server_uses(tmp_path: Path) -> None:
    path = write_conf(tmp_path, ServerConfig(bolt_port=1234, http_port=5678))
    assert path == tmp_path / "conf" / "neo4j.conf"
    assert conf_ports(path) == (1234, 5678)
    assert conf_ports(tmp_path / "missing.conf") is None
