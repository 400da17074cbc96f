"""A build's products are capped (arena/builds.py, ``Caps``; issue 34, "Build amplification"): a 120-byte source
asking the linker for 200 MiB is stopped at the cap while it builds, products over the file cap are refused
before they are packed, and a tar over the caps (a stored blob, a cache) is refused by ``unpack`` before it
writes anything — a sparse member that declares 10 GiB in a 10 KiB tar included.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena import builds
from tests.sandbox.test_build_adversarial import compile_bot, failed, started  # noqa: F401  (fixtures)

MIB = 1 << 20
# 86 bytes of C++ whose binary holds a 200 MiB initialised table (one non-zero byte puts it all in .data).
HUGE_TABLE = "char table[200 << 20] = {1};\nint main(int argc, char **) { return table[argc * 4096]; }\n"
# Four classes from one small file: Main, A, B and C, in the folder classes/ (five files and folders).
FOUR_CLASSES = ("public class Main { static class A {} static class B {} static class C {}\n"
                "  public static void main(String[] args) {\n"
                "    System.out.println(new A() + \"\" + new B() + new C()); } }\n")


@pytest.mark.timeout(60)
def test_a_tiny_source_asking_for_a_huge_binary_is_stopped_at_the_cap_while_it_builds(compile_bot, monkeypatch):  # noqa: F811
    # Limits that would let the 200 MiB binary be written: only the cap stops it.
    monkeypatch.setattr(builds, "MAX_OUTPUT_BYTES", MIB)
    result, _ = compile_bot({"main.cpp": HUGE_TABLE}, file_size_mb=512, tmp_mb=512, memory_mb=1024)
    reason = str(failed(result))
    assert reason.startswith("the C++ build produced more than 1 MiB, the cap on a build's products"), reason
    assert "stopped writing a file larger than that" in reason, reason


@pytest.mark.timeout(90)
def test_products_over_the_file_cap_are_refused_before_they_are_packed_naming_what_was_found(compile_bot,  # noqa: F811
                                                                                            monkeypatch):
    monkeypatch.setattr(builds, "MAX_OUTPUT_FILES", 3)
    result, _ = compile_bot({"Main.java": FOUR_CLASSES}, memory_mb=1024, wall_seconds=60)
    reason = str(failed(result))
    assert reason.startswith("the Java build produced more than 3 files and folders, the cap on a build's products:"), \
        reason
    assert reason.endswith(" in 5 files"), reason


def test_products_within_the_caps_are_packed_and_unpacked(compile_bot, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(builds, "MAX_OUTPUT_FILES", 5)  # exactly what the four classes need
    result, _ = compile_bot({"Main.java": FOUR_CLASSES}, memory_mb=1024, wall_seconds=60)
    assert isinstance(result, bytes), result
    builds.unpack(result, tmp_path)
    assert sorted(path.name for path in (tmp_path / builds.BUILD_DIR / "classes").iterdir()) == \
        ["Main$A.class", "Main$B.class", "Main$C.class", "Main.class"]


def tar_of(members: dict[str, bytes], sparse_size: int | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            if sparse_size is not None:  # GNU sparse 0.1: the data is the map's one block, the rest holes
                info.pax_headers = {"GNU.sparse.size": str(sparse_size), "GNU.sparse.map": f"0,{len(data)}",
                                    "GNU.sparse.name": name}
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(("products", "caps", "words"), [
    (tar_of({"main": b"\x7fELF" * 512}), builds.Caps(max_bytes=1024),
     ("more than 1 KiB", "its tar is 10 KiB")),
    (tar_of({"main": b"\x7fELF"}, sparse_size=10 << 30), builds.Caps(max_bytes=MIB),
     ("more than 1 MiB", "10240 MiB in 1 file")),
    (tar_of({f"classes/C{n}.class": b"\xca\xfe" for n in range(4)}), builds.Caps(max_files=3),
     ("more than 3 files and folders", "in 4 files")),
], ids=["bytes", "sparse-bomb", "files"])
def test_unpack_refuses_a_tar_over_the_caps_before_writing_anything(products, caps, words, tmp_path):
    with pytest.raises(builds.BuildFailed) as refused:
        builds.unpack(products, tmp_path, caps, label="C++")
    reason = str(refused.value)
    assert reason.startswith("the C++ build produced more than"), reason
    assert all(word in reason for word in words), reason
    assert list(tmp_path.iterdir()) == [], "something of the refused build was written"


def test_a_cached_build_over_todays_caps_is_refused(tmp_path: Path, monkeypatch):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.cpp").write_text("int main() {}\n")
    plan = builds.detect(bot, "cached")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / f"{builds.key(bot, plan)}.tar").write_bytes(tar_of({"main": b"\x7fELF" * 1024}))
    monkeypatch.setattr(builds, "MAX_OUTPUT_BYTES", 1024)
    with pytest.raises(builds.BuildFailed, match="the C\\+\\+ build produced more than 1 KiB"):
        builds.build(bot, plan, backend="unsafe", cache=cache)
    assert not (bot / builds.BUILD_DIR).exists()
