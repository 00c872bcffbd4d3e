from __future__ import annotations

import stat
from pathlib import Path

import pytest

from graph_memory.neo4j_local.errors import PasswordError
from graph_memory.neo4j_local.home import Home, dir_size, ensure_password
from graph_memory.neo4j_local.logs import tail
from graph_memory.neo4j_local.process import is_alive, read_pid


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_password_is_generated_once_private_and_reused(tmp_path: Path) -> None:
    home, pw_file = Home(tmp_path / "neo4j"), tmp_path / "neo4j-password"
    password, initial = ensure_password(home, pw_file)
    assert initial and len(password) >= 24
    assert _mode(pw_file) == 0o600
    assert ensure_password(home, pw_file) == (password, True)  # no store yet: still initial
    (home.data / "databases" / "system").mkdir(parents=True)
    assert ensure_password(home, pw_file) == (password, False)


def test_store_without_its_password_file_is_never_given_a_new_one(tmp_path: Path) -> None:
    home, pw_file = Home(tmp_path / "neo4j"), tmp_path / "neo4j-password"
    (home.data / "databases" / "system").mkdir(parents=True)
    with pytest.raises(PasswordError, match=r"missing.*restore.*delete"):
        ensure_password(home, pw_file)
    assert not pw_file.exists()


def test_readable_password_file_is_tightened_and_empty_one_refused(tmp_path: Path) -> None:
    home, pw_file = Home(tmp_path / "neo4j"), tmp_path / "neo4j-password"
    pw_file.write_text("s3cret\n")
    pw_file.chmod(0o644)
    assert ensure_password(home, pw_file)[0] == "s3cret"
    assert _mode(pw_file) == 0o600
    pw_file.write_text("\n")
    with pytest.raises(PasswordError, match="empty"):
        ensure_password(home, pw_file)


def test_store_size_and_log_tail(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * 1000)
    assert dir_size(tmp_path) == 1000
    log = tmp_path / "neo4j.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    assert tail(log, 2) == "line 98\nline 99"
    assert tail(tmp_path / "none.log", 5) == ""


def test_pid_file_parsing_never_yields_a_signalable_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "neo4j.pid"
    assert read_pid(pid_file) is None
    pid_file.write_text("garbage")
    bad = read_pid(pid_file)
    assert bad is not None and not is_alive(bad)
    pid_file.write_text("4242\n")
    assert read_pid(pid_file) == 4242
