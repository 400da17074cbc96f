"""Every upload the platform must refuse, through the API: 400, the one error shape, a message that names
the problem, and nothing stored (no version, no match, no file in the media folder).

Written independently of the upload code: the zips here are crafted byte by byte where an archiver would
not produce them (encrypted flags, device files, damaged data).
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.models import BotVersion
from matches.models import Match
from tests.platform.conftest import python_bot, zip_of

BOT = "alice-bura"
MAIN = b"import sys\nfor line in sys.stdin:\n    pass\n"


# ---- shared checks ---------------------------------------------------------------------------------------

def assert_error(response, status: int) -> dict:
    """The one error shape of the API: {"error": {"code", "message" (one line), "fields"}}; returns "error"."""
    assert response.status_code == status, (response.status_code, getattr(response, "content", b"")[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert {"code", "message", "fields"} <= set(error), error
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"].strip(), error
    assert "\n" not in error["message"], error
    assert isinstance(error["fields"], dict), error
    return error


def media_files(tmp_path: Path) -> set[str]:
    """Every file in this test's media folder (conftest points the storage at tmp_path/media)."""
    root = tmp_path / "media"
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()} if root.exists() else set()


@pytest.fixture
def refuse(alice, bura_bot, upload, tmp_path):
    """refuse(filename, data, *words) -> the message; asserts a 400 on field 'file' naming one of ``words``
    (case-insensitive) and that nothing was stored."""

    def check(filename: str, data: bytes, *words: str) -> str:
        versions, matches, files = BotVersion.objects.count(), Match.objects.count(), media_files(tmp_path)
        response = upload(alice, BOT, filename, data)
        error = assert_error(response, 400)
        assert "file" in error["fields"], error
        message = error["message"]
        assert message == f"file: {error['fields']['file'][0]}", error
        assert any(word.lower() in message.lower() for word in words), (message, words)
        reason = error["fields"]["file"][0]
        assert not reason.startswith(("is ", "are ", ":")), f"the message lost its subject: {reason!r}"
        assert "<ZipInfo" not in reason and " object at 0x" not in reason, f"Python internals shown: {reason!r}"
        assert BotVersion.objects.count() == versions, "a rejected upload left a BotVersion row"
        assert Match.objects.count() == matches, "a rejected upload queued a match"
        assert media_files(tmp_path) == files, "a rejected upload stored a file"
        print(f"{filename}: {message}")  # shown with -rA / on failure: the wording a user would read
        return message

    return check


# ---- crafting zips ---------------------------------------------------------------------------------------

def zip_with_modes(entries: list[tuple[str, int, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip whose entries carry the given Unix modes (file type bits included) in external_attr."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, mode, data in entries:
            info = zipfile.ZipInfo(name)
            info.create_system = 3  # Unix: external_attr's high 16 bits are st_mode
            info.external_attr = mode << 16
            info.compress_type = method
            archive.writestr(info, data)
    return buffer.getvalue()


def stored_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def with_flag_bits(data: bytes, flag: int) -> bytes:
    """The same zip with ``flag`` set in every local and central header's general-purpose bits."""
    raw = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = raw.find(signature)
        while start != -1:
            (bits,) = struct.unpack_from("<H", raw, start + offset)
            struct.pack_into("<H", raw, start + offset, bits | flag)
            start = raw.find(signature, start + 4)
    return bytes(raw)


def with_damaged_member(data: bytes, member: str) -> bytes:
    """The same stored zip with one byte of ``member``'s content changed (its CRC no longer matches)."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo(member)
    raw = bytearray(data)
    name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
    content = info.header_offset + 30 + name_len + extra_len
    raw[content] ^= 0xFF
    return bytes(raw)


# ---- size and emptiness ----------------------------------------------------------------------------------

def test_it_refuses_a_file_over_the_size_limit(refuse, settings):
    settings.UPLOAD_MAX_MB = 1
    big = MAIN + b"#" * (1024 * 1024)
    message = refuse("main.py", big, "limit")
    assert "1 MiB" in message, message


def test_it_refuses_a_zip_over_the_size_limit(refuse, settings):
    settings.UPLOAD_MAX_MB = 1
    noise = bytes((i * 7919 + i // 251) % 256 for i in range(1024 * 1024 + 4096))  # hardly compressible
    big = stored_zip({"main.py": MAIN, "data.bin": noise})
    message = refuse("bot.zip", big, "limit")
    assert "1 MiB" in message, message


def test_it_refuses_an_empty_file(refuse):
    refuse("main.py", b"", "empty")


def test_it_refuses_an_empty_zip_file(refuse):
    refuse("bot.zip", b"", "empty")


# ---- not a zip, damaged, encrypted -----------------------------------------------------------------------

def test_it_refuses_a_zip_name_on_a_file_that_is_not_a_zip(refuse):
    refuse("bot.zip", b"this is plain text, not an archive\n", "not a zip")


def test_it_refuses_a_file_that_starts_like_a_zip_but_is_garbage(refuse):
    refuse("bot.zip", b"PK\x03\x04" + b"\x00garbage" * 50, "zip")


def test_it_refuses_a_zip_with_a_bad_crc(refuse):
    damaged = with_damaged_member(stored_zip({"main.py": MAIN, "helper.py": b"X = 1\n" * 20}), "helper.py")
    refuse("bot.zip", damaged, "crc", "damaged", "corrupt")


def test_it_refuses_a_truncated_zip(refuse):
    whole = zip_of({"main.py": MAIN, "helper.py": b"X = 1\n" * 200})
    refuse("bot.zip", whole[: len(whole) // 2], "not a valid zip", "damaged", "truncated", "corrupt")


def test_it_refuses_a_zip_cut_inside_its_last_member(refuse):
    whole = stored_zip({"main.py": MAIN, "helper.py": b"X = 1\n" * 200})
    refuse("bot.zip", whole[: len(whole) - 60], "not a valid zip", "damaged", "truncated", "corrupt")


def test_it_refuses_a_zip_with_an_encrypted_entry(refuse):
    encrypted = with_flag_bits(stored_zip({"main.py": MAIN}), 0x1)
    refuse("bot.zip", encrypted, "encrypt", "password")


# ---- paths and entry kinds -------------------------------------------------------------------------------

def test_it_refuses_path_traversal_in_a_zip(refuse):
    message = refuse("bot.zip", zip_of({"main.py": MAIN, "../x": b"escape\n"}), "outside", "traversal", "..")
    assert "../x" in message, message


def test_it_refuses_path_traversal_inside_a_folder_of_a_zip(refuse):
    refuse("bot.zip", zip_of({"main.py": MAIN, "lib/../../x": b"escape\n"}), "outside", "traversal", "..")


def test_it_refuses_an_absolute_path_in_a_zip(refuse):
    # zipfile.writestr would strip the leading '/', so the name is written through a ZipInfo of our own
    message = refuse("bot.zip", zip_with_modes([("main.py", 0o100644, MAIN), ("/etc/x", 0o100644, b"x\n")]),
                     "outside", "absolute")
    assert "/etc/x" in message, message


def test_it_refuses_a_windows_drive_path_in_a_zip(refuse):
    refuse("bot.zip", zip_with_modes([("main.py", 0o100644, MAIN), ("C:/x", 0o100644, b"x\n")]),
           "outside", "absolute")


def test_it_refuses_a_symlink_in_a_zip(refuse):
    entries = [("main.py", 0o100644, MAIN), ("passwd", stat.S_IFLNK | 0o777, b"/etc/passwd")]
    refuse("bot.zip", zip_with_modes(entries, zipfile.ZIP_STORED), "symlink", "link")


@pytest.mark.parametrize("kind", [stat.S_IFCHR, stat.S_IFBLK], ids=["character-device", "block-device"])
def test_it_refuses_a_device_file_in_a_zip(refuse, kind):
    entries = [("main.py", 0o100644, MAIN), ("dev", kind | 0o666, b"")]
    refuse("bot.zip", zip_with_modes(entries, zipfile.ZIP_STORED), "device")


def test_it_refuses_a_fifo_in_a_zip(refuse):
    entries = [("main.py", 0o100644, MAIN), ("pipe", stat.S_IFIFO | 0o644, b"")]
    refuse("bot.zip", zip_with_modes(entries, zipfile.ZIP_STORED), "fifo", "pipe", "special")


# ---- zip bombs and limits --------------------------------------------------------------------------------

def test_it_refuses_a_zip_bomb_by_its_compression_ratio(refuse):
    bomb = zip_of({"main.py": MAIN, "zeros.bin": bytes(8 * 1024 * 1024)})  # ~1000:1
    refuse("bot.zip", bomb, "compress", "ratio", "bomb")


def test_it_refuses_a_zip_that_unpacks_beyond_the_total_size_limit(refuse):
    # each member is exactly 1 MiB (below the ratio check's floor), 65 of them pass the 64 MiB total
    files = {"main.py": MAIN} | {f"part{i:02d}.bin": bytes(1024 * 1024) for i in range(65)}
    refuse("bot.zip", zip_of(files), "64 MiB", "unpacks", "too large")


def test_it_refuses_a_zip_with_too_many_files(refuse):
    files = {"main.py": MAIN} | {f"f{i:04d}.txt": b"" for i in range(2001)}
    refuse("bot.zip", zip_of(files), "2000", "too many")


def test_it_refuses_a_zip_whose_implied_folders_pass_the_entry_limit(refuse):
    # 1001 members only, but each sits in a folder of its own that the zip never lists: 2001 entries
    files = {"main.py": MAIN} | {f"d{i:04d}/f.txt": b"" for i in range(1000)}
    refuse("bot.zip", zip_of(files), "2000", "too many")


def test_it_refuses_a_zip_nested_deeper_than_the_folder_limit(refuse):
    deep = "/".join(f"d{i}" for i in range(20)) + "/leaf.txt"
    refuse("bot.zip", zip_of({"main.py": MAIN, deep: b"x\n"}), "deep", "nested")


def test_it_refuses_a_zip_entry_with_a_name_too_long(refuse):
    refuse("bot.zip", zip_of({"main.py": MAIN, "n" * 300 + ".txt": b"x\n"}), "too long")


@pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")  # making the bad zip is the point
def test_it_refuses_a_zip_holding_the_same_file_twice(refuse):
    entries = [("main.py", 0o100644, MAIN), ("main.py", 0o100644, b"print('other')\n")]
    refuse("bot.zip", zip_with_modes(entries), "twice", "duplicate")


# ---- entry point and runtime -----------------------------------------------------------------------------

def test_it_refuses_a_zip_without_an_entry_point(refuse):
    refuse("bot.zip", zip_of({"helper.py": MAIN, "README.md": b"# my bot\n"}), "entry point")


def test_it_refuses_a_script_without_a_known_suffix_or_interpreter_line(refuse):
    refuse("mybot", b"just some text\n", "not executable", "#!")


@pytest.mark.parametrize("line", ["#!/usr/bin/ruby", "#!/usr/bin/env ruby", "#!/bin/bash"])
def test_it_refuses_an_interpreter_the_workers_do_not_have(refuse, line):
    interpreter = line.split()[-1].rsplit("/", 1)[-1]
    message = refuse("mybot", f"{line}\nputs 'hi'\n".encode(), interpreter)
    assert "python3" in message, f"the message should say which runtimes exist: {message}"


def test_it_refuses_a_zip_whose_main_needs_an_interpreter_the_workers_do_not_have(refuse):
    zipped = zip_with_modes([("main", 0o100755, b"#!/usr/bin/ruby\nputs 'hi'\n")])
    refuse("bot.zip", zipped, "ruby")


# ---- names, duplicates, the form itself ------------------------------------------------------------------

@pytest.mark.parametrize("filename", ["my bot.py", "-bot.py", ".hidden.py", "bot;rm.py", "b" * 101 + ".py",
                                      "бот.py"])
def test_it_refuses_an_invalid_file_name(refuse, filename):
    refuse(filename, MAIN, "name")


def test_it_refuses_the_same_file_as_the_current_version(alice, bura_bot, upload, tmp_path):
    from play.tasks import play_match

    data = python_bot("bura")
    first = upload(alice, BOT, "main.py", data)
    assert first.status_code == 201, first.json()
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == "ready", version.reason
    versions, matches, files = BotVersion.objects.count(), Match.objects.count(), media_files(tmp_path)

    again = upload(alice, BOT, "renamed.py", data)

    error = assert_error(again, 400)
    assert "file" in error["fields"], error
    assert "current version" in error["message"], error
    assert "v1" in error["message"], error
    assert BotVersion.objects.count() == versions
    assert Match.objects.count() == matches
    assert media_files(tmp_path) == files


def test_it_refuses_an_upload_without_the_file_field(alice, bura_bot, as_user, tmp_path):
    response = as_user(alice).post(f"/api/v1/bots/{BOT}/versions/", {}, format="multipart")
    error = assert_error(response, 400)
    assert "file" in error["fields"], error
    assert "file" in error["message"], error
    assert not bura_bot.versions.exists() and media_files(tmp_path) == set()


def test_it_refuses_a_file_sent_under_another_field_name(alice, bura_bot, as_user, tmp_path):
    response = as_user(alice).post(f"/api/v1/bots/{BOT}/versions/",
                                   {"upload": SimpleUploadedFile("main.py", MAIN)}, format="multipart")
    error = assert_error(response, 400)
    assert "upload" in error["fields"] or "file" in error["fields"], error
    assert not bura_bot.versions.exists() and media_files(tmp_path) == set()


def test_it_refuses_an_upload_with_an_unknown_extra_field(alice, bura_bot, as_user, tmp_path):
    response = as_user(alice).post(f"/api/v1/bots/{BOT}/versions/",
                                   {"file": SimpleUploadedFile("main.py", MAIN), "notes": "v2, faster"},
                                   format="multipart")
    error = assert_error(response, 400)
    assert error["fields"].get("notes") == ["unknown field"], error
    assert "notes" in error["message"], error
    assert not bura_bot.versions.exists() and media_files(tmp_path) == set()


def test_it_refuses_a_json_body_instead_of_a_multipart_upload(alice, bura_bot, as_user, tmp_path):
    response = as_user(alice).post(f"/api/v1/bots/{BOT}/versions/", {"file": "print('hi')"}, format="json")
    error = assert_error(response, 415)
    assert "json" in error["message"].lower(), error
    assert not bura_bot.versions.exists() and media_files(tmp_path) == set()


def test_it_accepts_a_good_upload_after_refusing_a_bad_one(refuse, alice, upload, tmp_path):
    """The refusals leave the bot usable (a control: the checks above are not refusing everything)."""
    refuse("bot.zip", b"not a zip", "not a zip")
    response = upload(alice, BOT, "main.py", python_bot("bura"))
    assert response.status_code == 201, response.json()
    assert response.json()["number"] == 1
    assert len(media_files(tmp_path)) == 1


def test_it_throttles_uploads_with_429_in_the_error_shape(alice, bura_bot, upload):
    """20 uploads an hour (settings' "upload" rate); refused ones count, or the check becomes a free oracle."""
    statuses = [upload(alice, BOT, "bot.zip", b"not a zip").status_code for _ in range(20)]
    assert statuses == [400] * 20, statuses
    throttled = upload(alice, BOT, "main.py", python_bot("bura"))
    error = assert_error(throttled, 429)
    assert error["code"] == "throttled", error
    assert error.get("retry_after_seconds", 0) > 0, error
    assert not bura_bot.versions.exists()


# ---- a broken worker is not the bot's fault (issue 8, "Bad input") --------------------------------------

@pytest.fixture
def pending_version(alice, bura_bot, upload, settings):
    settings.WORKER_SELF_STOP = False  # the task would otherwise SIGTERM this very process
    assert upload(alice, BOT, "main.py", python_bot("bura")).status_code == 201
    return BotVersion.objects.get(bot=bura_bot, number=1)


def test_it_leaves_the_validation_queued_when_the_worker_cannot_start_the_sandbox(pending_version, monkeypatch):
    import play.startup
    from play.tasks import play_match

    monkeypatch.setattr(play.startup, "sandbox_problem", lambda: "sandbox backend bwrap unavailable: test")
    assert play_match(pending_version.validation_match_id) == "worker-broken"
    pending_version.refresh_from_db()
    assert pending_version.status == "pending" and pending_version.reason == ""
    assert Match.objects.get(pk=pending_version.validation_match_id).status == "queued"


def test_it_retries_a_validation_whose_sandbox_fails_to_start(pending_version, monkeypatch, settings):
    import play.match
    from play.tasks import play_match

    settings.MAX_ATTEMPTS = 3

    def broken(match):
        raise OSError("bwrap: setting up uid map: Permission denied")

    monkeypatch.setattr(play.match, "play", broken)
    assert play_match(pending_version.validation_match_id) == "infrastructure"
    match = Match.objects.get(pk=pending_version.validation_match_id)
    assert match.status == "queued" and match.attempts == 1, (match.status, match.attempts)
    assert "uid map" in match.failure
    pending_version.refresh_from_db()
    assert pending_version.status == "pending" and pending_version.reason == ""


def test_it_never_marks_the_bot_rejected_when_every_attempt_failed_on_the_sandbox(pending_version, monkeypatch,
                                                                                 settings, alice, as_user):
    import play.match
    from play.tasks import play_match

    settings.MAX_ATTEMPTS = 2

    def broken(match):
        raise OSError("bwrap: setting up uid map: Permission denied")

    monkeypatch.setattr(play.match, "play", broken)
    for _ in range(2):
        assert play_match(pending_version.validation_match_id) == "infrastructure"
    assert Match.objects.get(pk=pending_version.validation_match_id).status == "failed"
    pending_version.refresh_from_db()
    assert "not the bot's fault" in pending_version.reason, pending_version.reason
    shown = as_user(alice).get(f"/api/v1/bots/{BOT}/versions/1/").json()
    assert shown["status"] != "rejected", f"an infrastructure failure is shown as the bot's rejection: {shown}"


def test_a_bot_container_the_engine_cannot_start_is_never_the_bots_loss(pending_version, monkeypatch, settings):
    """Issue 26: `run` exit 125 (here: the worker host lacks the bot image) gives the match back and stops the
    worker; the version stays pending, never rejected for the engine's failure."""
    import play.tasks
    from play.tasks import play_match
    from sandbox.backends import container_engine

    reason = container_engine.unavailable_reason()
    if reason is not None:
        pytest.skip(f"no container engine here: {reason}")
    settings.SANDBOX_BACKEND = "docker"
    monkeypatch.setenv("KOZYR_SANDBOX_DOCKER_IMAGE", "localhost/kozyr-no-such-image:none")
    stops = []
    monkeypatch.setattr(play.tasks, "stop_this_worker", lambda: stops.append(True))
    assert play_match(pending_version.validation_match_id) == "infrastructure"
    match = Match.objects.get(pk=pending_version.validation_match_id)
    assert match.status == "queued" and match.attempts == 1, (match.status, match.attempts)
    assert "aborted (infrastructure)" in match.failure and "sandbox_failure" in match.failure, match.failure
    assert stops == [True]  # an engine that cannot start containers would fail every match it took
    pending_version.refresh_from_db()
    assert pending_version.status == "pending" and pending_version.reason == ""
    assert not match.seats.exclude(verdict="").exists()  # nothing was scored


def foreign_elf() -> bytes:
    """A 64-bit ELF header for a CPU the workers (this machine's architecture) cannot run."""
    import platform

    machine = 0x3E if platform.machine() in ("aarch64", "arm64") else 0xB7  # x86-64 on ARM hosts, else AArch64
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # 64-bit, little-endian, version 1, System V
    header = ident + struct.pack("<HHIQQQIHHHHHH", 2, machine, 1, 0x400078, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    program = struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000, 0x80, 0x80, 0x1000)  # one PT_LOAD
    return header + program + b"\x00" * 8


def test_it_refuses_a_binary_for_a_cpu_the_workers_do_not_have(refuse):
    refuse("main", foreign_elf(), "architecture", "cpu", "aarch64", "arm", "x86")


def test_it_refuses_a_zipped_binary_for_a_cpu_the_workers_do_not_have(refuse):
    refuse("bot.zip", zip_with_modes([("main", 0o100755, foreign_elf())]), "architecture", "cpu", "aarch64", "arm",
           "x86")
