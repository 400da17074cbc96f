"""Staging a bot: only its own plain files are read, everything is counted and capped, every refusal is one
line, and the entry point's runtime is one the sandbox provides."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import zipfile
from pathlib import Path

import pytest

from arena import botspec
from arena.botspec import BotSpecError, parse_bot, stage_bot
from arena.cli import main
from tests.arena.conftest import PROTOCOL_BOTS

FAIR = (PROTOCOL_BOTS / "misbehave.py").read_text().replace("MODE = sys.argv[1]", "MODE = 'fair'")


def folder_bot(tmp_path: Path) -> Path:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(FAIR)
    return bot


def refused(source: Path, tmp_path: Path) -> str:
    with pytest.raises(BotSpecError) as caught:
        stage_bot(source, tmp_path / "staged")
    message = str(caught.value)
    assert "\n" not in message
    return message


def write_zip(path: Path, members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name) if name == "" else name, data)  # writestr refuses a plain ""
    return path


# ---- folders ----------------------------------------------------------------------------------------------

def test_a_symlink_to_a_file_outside_the_bot_is_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root-only content")
    bot = folder_bot(tmp_path)
    (bot / "notes.txt").symlink_to(secret)
    assert "'notes.txt' is a symlink" in refused(bot, tmp_path)
    assert not any("root-only" in p.read_text() for p in (tmp_path / "staged").rglob("*") if p.is_file())


def test_a_symlink_to_a_device_or_a_folder_outside_is_refused(tmp_path):
    bot = folder_bot(tmp_path)
    (bot / "zero").symlink_to("/dev/zero")
    assert "'zero' is a symlink" in refused(bot, tmp_path)
    (bot / "zero").unlink()
    (bot / "etc").symlink_to("/etc", target_is_directory=True)
    assert "'etc' is a symlink" in refused(bot, tmp_path)


def test_fifos_and_sockets_are_refused_without_hanging(tmp_path):
    bot = folder_bot(tmp_path)
    os.mkfifo(bot / "pipe")
    assert "'pipe' is a fifo" in refused(bot, tmp_path)
    (bot / "pipe").unlink()
    sub = bot / "sub"
    sub.mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sub / "sock"))
        assert "'sub/sock' is a socket" in refused(bot, tmp_path)


def test_a_folder_is_capped_in_files_bytes_and_depth_while_copying(tmp_path, monkeypatch):
    bot = folder_bot(tmp_path)
    for i in range(30):
        (bot / f"f{i}.txt").write_text("x" * 1000)
    monkeypatch.setattr(botspec, "MAX_BOT_ENTRIES", 20)
    assert "more than 20 files and folders" in refused(bot, tmp_path / "a")
    monkeypatch.setattr(botspec, "MAX_BOT_ENTRIES", 2000)
    monkeypatch.setattr(botspec, "MAX_BOT_BYTES", 10_000)
    assert "unpacks to more than" in refused(bot, tmp_path / "b")
    monkeypatch.setattr(botspec, "MAX_BOT_BYTES", 64 << 20)
    deep = bot / "/".join(f"d{i}" for i in range(botspec.MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    assert "nested more than" in refused(bot, tmp_path / "c")


def test_a_folder_of_plain_files_is_copied_with_its_modes(tmp_path):
    bot = folder_bot(tmp_path)
    (bot / "lib").mkdir()
    (bot / "lib" / "tool").write_text("#!/bin/sh\n")
    (bot / "lib" / "tool").chmod(0o755)
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "junk.pyc").write_bytes(b"x")
    spec = stage_bot(bot, tmp_path / "staged")
    staged = Path(spec.directory)
    assert spec.command == ("python3", "main.py") and spec.runtime == "python3"
    assert (staged / "lib" / "tool").stat().st_mode & 0o111
    assert not (staged / "__pycache__").exists()


# ---- zips -------------------------------------------------------------------------------------------------

def test_folders_implied_by_zip_paths_count_toward_the_limits(tmp_path):
    members = [("main.py", FAIR.encode())]
    members += [("/".join(f"n{i}-{j}" for j in range(12)) + "/f", b"") for i in range(200)]
    archive = write_zip(tmp_path / "bot.zip", members)  # 201 entries, 2,400 folders
    assert f"more than {botspec.MAX_BOT_ENTRIES} files and folders" in refused(archive, tmp_path)
    assert not (tmp_path / "staged").exists() or len(list((tmp_path / "staged").rglob("*"))) == 0


def test_a_deep_zip_path_is_refused(tmp_path):
    archive = write_zip(tmp_path / "bot.zip", [("main.py", b""), ("/".join(["d"] * 40) + "/f", b"")])
    assert "nested more than" in refused(archive, tmp_path)


def test_a_zip_bomb_is_refused_by_its_compression_ratio(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("main.py", FAIR)
        z.writestr("zeros", b"\0" * (8 << 20))
    assert "compressed more than" in refused(archive, tmp_path)


LONG = "x" * 300


@pytest.mark.parametrize(("members", "message"), [
    ([("", b"x"), ("main.py", b"")], "empty or '.' name"),
    ([("a//main.py", b"")], "empty or '.' name"),
    ([("lib", b"file"), ("lib/x.py", b""), ("main.py", b"")], "'lib' both as a file and as a folder"),
    ([("lib/x.py", b""), ("lib", b"file"), ("main.py", b"")], "'lib' both as a file and as a folder"),
    ([("lib/", b""), ("lib", b"file"), ("main.py", b"")], "'lib' both as a file and as a folder"),
    ([("main.py", b""), ("main.py", b"again")], "'main.py' twice"),
    ([("main.py", b""), (f"{LONG}.py", b"")], "is too long"),
    ([("main.py", b""), (f"{LONG}/x.py", b"")], "is too long"),
])
def test_malformed_zips_are_one_line_errors(capsys, tmp_path, members, message):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name it is asked to write
        archive = write_zip(tmp_path / "bot.zip", members)
    assert message in refused(archive, tmp_path)
    code = main(["play", "bura", str(archive), "builtin:random", "--sandbox", "unsafe", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err


# ---- entry points and runtimes ----------------------------------------------------------------------------

def no_mode_bits(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = 0  # as Python's writestr with a plain name, and Windows tools, store it
    return info


def test_a_zipped_main_without_mode_bits_runs_when_it_starts_with_a_shebang(capsys, tmp_path):
    archive = write_zip(tmp_path / "bot.zip", [(no_mode_bits("bot/main"), ("#!/usr/local/bin/python3\n" + FAIR)
                                                .encode())])
    spec = stage_bot(archive, tmp_path / "staged")
    assert spec.command == ("python3", "main") and spec.runtime == "python3"
    code = main(["play", "bura", str(archive), "builtin:random", "--sandbox", "unsafe", "--quiet", "--seed", "1"])
    assert code == 0, capsys.readouterr().err


def test_a_zipped_elf_main_without_mode_bits_is_made_executable(tmp_path):
    archive = write_zip(tmp_path / "bot.zip", [(no_mode_bits("main"), Path("/bin/true").read_bytes())])
    spec = stage_bot(archive, tmp_path / "staged")
    assert spec.command == ("./main",) and spec.runtime == botspec.NATIVE
    assert (Path(spec.directory) / "main").stat().st_mode & stat.S_IXUSR


def test_an_elf_main_whose_loader_the_sandbox_lacks_is_refused_naming_the_loader(tmp_path):
    # A binary built against another C library (musl, a newer glibc in another folder) would only exit 127.
    binary = bytearray(Path("/bin/true").read_bytes())
    loader = botspec._elf_loader(Path("/bin/true")).encode()
    at = binary.index(loader + b"\0")
    elsewhere = b"/lib/ld-musl-x86_64.so.1"[:len(loader)].ljust(len(loader), b"1")
    binary[at:at + len(loader)] = elsewhere
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main").write_bytes(bytes(binary))
    message = refused(bot, tmp_path)
    assert f"linked for the loader '{elsewhere.decode()}', which the sandbox does not have" in message
    assert botspec._elf_loader(Path(stage_bot(Path("/bin/true"), tmp_path / "true").directory) / "true") \
        == loader.decode()


@pytest.mark.parametrize(("shebang", "command"), [
    ("#!/usr/bin/env perl\r\n", ("perl", "main")),
    ("#!/usr/bin/perl -w\n", ("perl", "main")),
    ("#! /usr/bin/env -S node --no-warnings\n", ("node", "main")),
    ("#!/usr/bin/python3.11\n", ("python3", "main")),
])
def test_a_shebang_names_the_runtime_whatever_its_path(tmp_path, shebang, command):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main").write_text(shebang + "\n")  # not executable: a folder from a checkout without modes
    assert stage_bot(bot, tmp_path / "staged").command == command


def test_a_main_needing_another_interpreter_is_refused_with_the_list(tmp_path):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main").write_text("#!/usr/bin/env ruby\nputs 1\n")
    message = refused(bot, tmp_path)
    assert "needs 'ruby'" in message and "python3, node, perl" in message


def test_a_main_that_is_neither_binary_nor_script_is_not_executable(tmp_path):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main").write_text("print('hi')\n")
    (bot / "main").chmod(0o755)
    assert "main is not executable" in refused(bot, tmp_path)


def test_a_single_perl_script_and_a_single_shebang_file_are_bots(tmp_path):
    (tmp_path / "bot.pl").write_text("print 1;\n")
    assert parse_bot(str(tmp_path / "bot.pl"), tmp_path / "s", []).command == ("perl", "bot.pl")
    (tmp_path / "runme").write_text("#!/usr/bin/env node\n")
    assert parse_bot(str(tmp_path / "runme"), tmp_path / "s", []).command == ("node", "runme")


def test_a_bot_named_by_a_symlink_on_the_command_line_is_used(tmp_path):
    bot = folder_bot(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(bot, target_is_directory=True)
    spec = parse_bot(str(link), tmp_path / "s", [])
    assert spec.command == ("python3", "main.py")
    shutil.rmtree(tmp_path / "s")


def test_the_runtimes_come_from_the_sandbox_list(tmp_path, monkeypatch):
    import sandbox.runtimes

    monkeypatch.setattr(sandbox.runtimes, "RUNTIMES", {"python3": "Python", "node": "Node.js"})
    (tmp_path / "bot.pl").write_text("print 1;\n")
    with pytest.raises(BotSpecError, match=r"bot.pl needs 'perl'.*python3, node"):
        parse_bot(str(tmp_path / "bot.pl"), tmp_path / "s", [])
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main").write_text("#!/usr/bin/perl\n")
    assert "needs 'perl'; bots may rely on python3, node" in refused(bot, tmp_path)


@pytest.mark.parametrize(("mode", "kind"), [
    (stat.S_IFCHR | 0o666, "device file"), (stat.S_IFBLK | 0o666, "device file"), (stat.S_IFIFO | 0o644, "fifo"),
    (stat.S_IFSOCK | 0o644, "socket"),
])
def test_zip_entries_of_special_kinds_are_refused(tmp_path, mode, kind):
    info = zipfile.ZipInfo("special")
    info.external_attr = mode << 16
    archive = write_zip(tmp_path / "bot.zip", [("main.py", FAIR.encode()), (info, b"")])
    assert f"zip entry 'special' is a {kind}" in refused(archive, tmp_path)


def test_an_encrypted_zip_entry_is_named_in_one_line(tmp_path):
    archive = write_zip(tmp_path / "bot.zip", [("main.py", FAIR.encode())])
    data = bytearray(archive.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the flag bits of both headers
        at = data.index(signature)
        data[at + offset] |= 0x1
    archive.write_bytes(bytes(data))
    message = refused(archive, tmp_path)
    assert "zip entry 'main.py' is encrypted" in message and "ZipInfo" not in message


def test_caches_and_metadata_folders_are_left_out_of_zips_too(tmp_path):
    archive = write_zip(tmp_path / "bot.zip", [("bot/main.py", FAIR.encode()), ("bot/__pycache__/m.pyc", b"x"),
                                               ("bot/.git/HEAD", b"ref"), ("__MACOSX/bot/._main.py", b"x")])
    staged = Path(stage_bot(archive, tmp_path / "staged").directory)
    assert sorted(p.name for p in staged.iterdir()) == ["main.py"]
