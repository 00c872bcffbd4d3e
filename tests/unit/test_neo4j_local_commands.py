from __future__ import annotations

import argparse

import pytest

from graph_memory.neo4j_local import commands
from graph_memory.neo4j_local.errors import PortInUse
from graph_memory.neo4j_local.server import StartResult


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graph-memory")
    commands.register(parser.add_subparsers(dest="command"))
    return parser


def test_register_adds_the_neo4j_subcommands() -> None:
    parser = _parser()
    for sub in ("install", "start", "stop", "status", "logs"):
        args = parser.parse_args(["neo4j", sub])
        assert callable(args.handler)
    assert parser.parse_args(["neo4j", "fetch-plugins", "/plugins"]).directory.name == "plugins"
    args = parser.parse_args(["neo4j", "logs", "-n", "5", "--follow", "--file", "debug"])
    assert (args.lines, args.follow, args.file) == (5, True, "debug")


def test_a_refused_start_is_one_line_on_stderr_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def busy(*_: object, **__: object) -> StartResult:
        raise PortInUse("Bolt port 7687 on 127.0.0.1 is already in use by another process")

    monkeypatch.setattr(commands, "start", busy)
    args = _parser().parse_args(["neo4j", "start"])
    assert args.handler(args) == 1
    err = capsys.readouterr().err
    assert err == "graph-memory: Bolt port 7687 on 127.0.0.1 is already in use by another process\n"


def test_external_server_means_nothing_to_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    args = _parser().parse_args(["neo4j", "start"])
    assert args.handler(args) == 0
    assert "external server is configured" in capsys.readouterr().out
