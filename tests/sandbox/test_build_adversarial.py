"""Hostile source bots against the in-sandbox build (arena/builds.py): compile bombs end at their limits with
a one-line reason, the compiler sees nothing but the bot's own files, and refusals happen before any compile.

Each test compiles with limits much smaller than BUILD_LIMITS (the one being tested), asserts the one-line
reason the author would see, the wall time it took, and that nothing of the build is left running
(conftest.assert_nothing_left on the sandbox process the build started).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

import sandbox
from arena import botspec, builds
from tests.sandbox.conftest import assert_nothing_left

SECRET = "kozyr-build-secret-5a93e1"
# Small limits: each test raises only the one it tests.
SMALL = dict(memory_mb=512, processes=64, cpu_seconds=20, wall_seconds=40, open_files=256, file_size_mb=32,
             tmp_mb=64)
def limits(**changes) -> sandbox.Limits:
    return sandbox.Limits(**{**SMALL, **changes})


def one_line(text: str) -> bool:
    return "\n" not in text and "\r" not in text and 0 < len(text) <= 600


def write_bot(folder: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return folder


@pytest.fixture
def started(monkeypatch):
    """Every sandbox process a build starts, with its report once finished (to check nothing is left)."""
    runs: list[tuple[sandbox.SandboxProcess, list]] = []
    real_start = sandbox.start

    def spy(*args, **kwargs):
        proc = real_start(*args, **kwargs)
        reports: list = []
        real_finish = proc.finish

        def finish(*a, **k):
            report = real_finish(*a, **k)
            reports.append(report)
            return report

        proc.finish = finish
        runs.append((proc, reports))
        return proc

    monkeypatch.setattr(sandbox, "start", spy)
    yield runs
    for proc, _ in runs:
        proc.close()


@pytest.fixture
def compile_bot(backend, tmp_path, started):
    """compile_bot(files, **limits) -> (products or the exception, seconds): stage the bot, build it."""

    def _compile(files: dict[str, str | bytes], **changes):
        source = write_bot(tmp_path / f"source-{len(started)}", files)
        spec = botspec.stage_bot(source, tmp_path / f"staged-{len(started)}")
        plan = botspec.build_plan(Path(spec.directory), "hostile")
        assert plan is not None, "the bot was not taken for a source bot"
        began = time.monotonic()
        try:
            result = builds.compile_in_sandbox(Path(spec.directory), plan, backend, limits=limits(**changes))
        except (builds.BuildFailed, builds.BuildError) as err:
            result = err
        seconds = time.monotonic() - began
        assert len(started) >= 1, "the build started no sandbox"
        proc, reports = started[-1]
        assert reports, "the build never finished its sandbox"
        assert_nothing_left(proc, reports[-1])
        return result, seconds

    return _compile


def failed(result) -> builds.BuildFailed:
    assert isinstance(result, builds.BuildFailed), f"expected the bot's BuildFailed, got {result!r}"
    assert one_line(str(result)), f"the reason is not one line: {str(result)!r}"
    return result


HELLO = "#include <cstdio>\nint main() { std::puts(\"hi\"); return 0; }\n"


@pytest.mark.timeout(60)
def test_a_small_cpp_bot_builds(compile_bot):
    result, seconds = compile_bot({"main.cpp": HELLO}, wall_seconds=10)
    assert isinstance(result, bytes), f"a legit C++ bot did not build: {result!r}"
    with tarfile.open(fileobj=io.BytesIO(result)) as archive:
        assert "main" in archive.getnames(), "the build's products hold no main binary"
    assert seconds < 10, f"a hello-world build took {seconds:.1f} s"


# 200 000 x 200 000 steps: each loop under -fconstexpr-loop-limit (262 144), the whole far beyond what 3 s of
# CPU evaluates (and below -fconstexpr-ops-limit's 2^33 only after minutes): a compile that runs for ever.
ENDLESS_CONSTEXPR = """
constexpr unsigned long long spin() {
  unsigned long long x = 0;
  for (unsigned long long i = 0; i < 200000; ++i)
    for (unsigned long long j = 0; j < 200000; ++j) x += i ^ j ^ (x >> 3);
  return x;
}
constexpr unsigned long long value = spin();
int main() { return (int)value; }
"""


@pytest.mark.timeout(60)
def test_an_endless_constexpr_compile_stops_at_the_cpu_limit(compile_bot):
    result, seconds = compile_bot({"main.cpp": ENDLESS_CONSTEXPR}, cpu_seconds=3, wall_seconds=30)
    reason = str(failed(result))
    assert "CPU limit of 3 s" in reason, f"not stopped at the CPU limit: {reason}"
    assert 3 <= seconds < 3 + 7, f"stopped after {seconds:.1f} s of wall time, not at 3 s of CPU"


# Exponential template instantiation: every level instantiates two of the one below, 2^depth in all.
TEMPLATE_BOMB = """
template <int N, int K> struct Bomb {
  static constexpr long value = Bomb<N - 1, 2 * K>::value + Bomb<N - 1, 2 * K + 1>::value;
};
template <int K> struct Bomb<0, K> { static constexpr long value = K; };
int main() { return (int)Bomb<60, 0>::value; }
"""


@pytest.mark.timeout(60)
def test_an_exponential_template_expansion_ends_at_a_limit_with_one_line(compile_bot):
    result, seconds = compile_bot({"main.cpp": TEMPLATE_BOMB}, cpu_seconds=3, wall_seconds=30, memory_mb=256)
    reason = str(failed(result))
    assert "CPU limit of 3 s" in reason or "memory limit of 256 MiB" in reason, \
        f"the template bomb did not end at a limit: {reason}"
    assert seconds < 3 + 7, f"the template bomb ran {seconds:.1f} s of wall time"


def free_bytes(path: str) -> int:
    return shutil.disk_usage(path).free


def large_files_since(folder: str, since: float, size: int) -> list[str]:
    found = []
    for root, _, files in os.walk(folder, onerror=lambda _: None):
        for name in files:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if info.st_size >= size and info.st_mtime >= since:
                found.append(path)
    return found


BIG_OBJECT = "char big[10ull << 30] = {1};\nint main(int argc, char **) { return big[argc * 4096]; }\n"
# Four objects of 28 MB of real (non-zero) data each, every one under the 32 MiB file-size limit: together
# they overflow the 64 MiB /tmp the objects wait in until the link.
FILL = 'asm(".section .data\\n.fill 3500000, 8, 0x0123456789abcdef\\n.text");\n'
FILLING_OBJECTS = {"main.cpp": FILL + "int main() { return 0; }\n", "a.cpp": FILL, "b.cpp": FILL, "c.cpp": FILL}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", ["file-size", "tmp-size"])
def test_huge_objects_end_at_the_file_limits_and_fill_no_disk(compile_bot, case):
    files, expected = {"file-size": ({"main.cpp": BIG_OBJECT}, "File size limit exceeded"),
                       "tmp-size": (FILLING_OBJECTS, "No space left on device")}[case]
    since, disk_before, tmp_before = time.time() - 1, free_bytes("/"), free_bytes("/tmp")
    result, seconds = compile_bot(files, file_size_mb=32, tmp_mb=64, memory_mb=1024)
    reason = str(failed(result))
    assert expected in reason, f"the huge object did not end at the {case} limit: {reason}"
    assert seconds < 20, f"the huge object took {seconds:.1f} s to be refused"
    # Nothing of it reached the host: no disk space gone (other tests run beside: a generous 1 GiB), no
    # large file left in the host's /tmp or in the sandbox's state folder (where bwrap copies bots).
    assert free_bytes("/") > disk_before - (1 << 30), "the build filled the host's disk"
    assert free_bytes("/tmp") > tmp_before - (1 << 30), "the build filled the host's /tmp"
    for folder in ("/tmp", "/run/kozyr-sandbox"):
        assert large_files_since(folder, since, 16 << 20) == [], f"a large file was left in {folder}"


# A 1 GiB table evaluated at compile time: cc1plus needs several times that.
MEMORY_BOMB = """
#include <array>
constexpr auto make() {
  std::array<unsigned long long, (1ull << 27)> a{};
  for (unsigned long long i = 0; i < a.size(); ++i) a[i] = i * 7;
  return a;
}
constexpr auto table = make();
int main() { return (int)table[5]; }
"""


@pytest.mark.timeout(60)
def test_a_compile_that_eats_memory_ends_at_the_memory_limit(compile_bot):
    result, seconds = compile_bot({"main.cpp": MEMORY_BOMB}, memory_mb=256, cpu_seconds=20, wall_seconds=30)
    reason = str(failed(result))
    assert "memory limit of 256 MiB" in reason, f"not stopped at the memory limit: {reason}"
    assert seconds < 20, f"the memory bomb took {seconds:.1f} s to be stopped"


@pytest.mark.timeout(60)
def test_products_larger_than_the_cap_are_refused(compile_bot, monkeypatch):
    monkeypatch.setattr(builds, "MAX_OUTPUT_BYTES", 1 << 20)
    # A legit bot whose binary holds a 4 MiB initialised table: more than the 1 MiB cap.
    bot = "char table[4 << 20] = {1};\nint main(int argc, char **) { return table[argc * 4096]; }\n"
    result, seconds = compile_bot({"main.cpp": bot})
    reason = str(failed(result))
    assert "produced more than 1 MiB" in reason, f"the oversized products were not refused: {reason}"
    assert seconds < 20, f"the build took {seconds:.1f} s"


def other_bot(tmp_path: Path) -> Path:
    """A second staged bot with a secret header, readable by anyone on the host: only isolation hides it."""
    folder = tmp_path / "other-bot"
    write_bot(folder, {"main.cpp": HELLO, "secret.h": f'const char *secret = "{SECRET}";\n'})
    for path in (tmp_path, folder):
        os.chmod(path, 0o755)
    os.chmod(folder / "secret.h", 0o644)
    return folder


@pytest.mark.timeout(60)
@pytest.mark.parametrize("via", ["include", "incbin"])
@pytest.mark.parametrize("target", ["other-bot", "repository", "shadow"])
def test_the_compiler_cannot_include_another_bots_or_the_hosts_files(compile_bot, tmp_path, target, via):
    path = {"other-bot": str(other_bot(tmp_path) / "secret.h"),
            "repository": str(Path(__file__).resolve().parents[2] / "pyproject.toml"),
            "shadow": "/etc/shadow"}[target]
    assert os.path.isfile(path), f"{path} should exist on the host for this test to mean anything"
    if via == "include":
        bot, refusal = f'#include "{path}"\nint main() {{ return 0; }}\n', "No such file or directory"
    else:  # the assembler reads files too: .incbin would paste the file's bytes into the binary
        bot, refusal = f'asm(".section .data\\n.incbin \\"{path}\\"\\n.text");\nint main() {{ return 0; }}\n', \
            "file not found"
    result, _ = compile_bot({"main.cpp": bot})
    reason = str(failed(result))
    assert refusal in reason, f"the compiler could read {path}: {reason}"
    assert SECRET not in " ".join([reason, *result.log_lines])


@pytest.mark.timeout(60)
def test_has_include_sees_none_of_the_hosts_or_other_bots_files(compile_bot, tmp_path):
    probes = [str(other_bot(tmp_path) / "secret.h"), str(Path(__file__).resolve()), "/etc/shadow",
              "/work/main/pyproject.toml", "/root/.bashrc", "/run/kozyr-sandbox/owners"]
    checks = "".join(f'#if __has_include("{path}")\n#error "visible: {path}"\n#endif\n' for path in probes)
    result, _ = compile_bot({"main.cpp": checks + HELLO})
    assert isinstance(result, bytes), f"the compile saw a host file: {result!r}"


@pytest.mark.timeout(60)
def test_the_workers_environment_is_not_in_the_compilers_proc(compile_bot, monkeypatch):
    monkeypatch.setenv("KOZYR_TEST_SECRET", SECRET)
    # /proc/1/environ is the sandbox's own pid 1: its NUL-separated text breaks the compile, and the
    # compiler's messages quote what it read.
    result, _ = compile_bot({"main.cpp": '#include "/proc/1/environ"\nint main() { return 0; }\n'})
    said = " ".join([str(result), *getattr(result, "log_lines", [])])
    assert SECRET not in said and "KOZYR_TEST_SECRET" not in said, "the worker's environment reached the build"


@pytest.mark.timeout(60)
def test_go_cannot_fetch_a_module(compile_bot):
    bot = 'package main\n\nimport "github.com/kozyr-test/nowhere"\n\nfunc main() { nowhere.Run() }\n'
    result, seconds = compile_bot({"main.go": bot}, wall_seconds=30)
    reason = str(failed(result))
    assert "github.com/kozyr-test/nowhere" in " ".join(result.log_lines), f"unexpected failure: {reason}"
    assert seconds < 20, f"go spent {seconds:.1f} s (trying the network?)"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("case", ["dependencies", "build-dependencies", "build.rs", "proc-macro"])
def test_rust_refusals_are_one_line_and_happen_before_any_compile(backend, tmp_path, monkeypatch, case):
    def never(*args, **kwargs):
        raise AssertionError("the refused bot reached the compiler")

    monkeypatch.setattr(builds, "compile_in_sandbox", never)
    monkeypatch.setattr(sandbox, "start", never)
    manifest = '[package]\nname = "bot"\nversion = "0.1.0"\nedition = "2021"\n'
    files = {"src/main.rs": "fn main() {}\n"}
    if case in ("dependencies", "build-dependencies"):
        manifest += f'\n[{case}]\nrand = "0.8"\nserde = "1"\n'
    elif case == "build.rs":
        files["build.rs"] = 'fn main() { std::process::Command::new("curl").status().unwrap(); }\n'
    else:
        manifest += "\n[lib]\nproc-macro = true\n"
    source = write_bot(tmp_path / "rust", {"Cargo.toml": manifest, **files})
    with pytest.raises(botspec.BotSpecError) as refused:
        botspec.stage_bot(source, tmp_path / "staged")
    assert one_line(str(refused.value)), f"the refusal is not one line: {str(refused.value)!r}"
    expected = {"dependencies": "rand, serde", "build-dependencies": "rand, serde", "build.rs": "build script",
                "proc-macro": "proc-macro"}[case]
    assert expected in str(refused.value), f"the refusal does not say what to fix: {refused.value}"


@pytest.mark.timeout(60)
def test_a_compile_error_is_one_line_naming_file_and_line_with_the_full_log(compile_bot):
    bot = "#include <cstdio>\nint main() {\n  return undefined_name;\n}\n"
    result, _ = compile_bot({"main.cpp": bot})
    reason = str(failed(result))
    assert "main.cpp:3" in reason and "undefined_name" in reason, f"the reason does not point at it: {reason}"
    log = "\n".join(result.log_lines)
    assert "In function" in log and "return undefined_name;" in log, f"the compiler's messages are lost: {log}"


PROCESSOR = """
import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.element.TypeElement;
@SupportedAnnotationTypes("*")
public class Evil extends AbstractProcessor {
  @Override public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment env) {
    throw new RuntimeException("KOZYR ANNOTATION PROCESSOR RAN");
  }
}
"""


@pytest.mark.timeout(90)
def test_a_java_annotation_processor_shipped_with_the_bot_is_not_run(compile_bot, tmp_path):
    # The bot's folder is javac's working directory (its default class path): a compiled processor there,
    # registered as a service, would run inside javac were it not for -proc:none.
    assert "-proc:none" in builds.LANGUAGES["java"].command
    work = tmp_path / "processor"
    work.mkdir()
    (work / "Evil.java").write_text(PROCESSOR)
    subprocess.run(["javac", "-d", str(work), str(work / "Evil.java")], check=True, capture_output=True)
    bot = {"Main.java": "public class Main { public static void main(String[] a) { System.out.println(1); } }\n",
           "Evil.class": (work / "Evil.class").read_bytes(),
           "META-INF/services/javax.annotation.processing.Processor": "Evil\n"}
    result, _ = compile_bot(bot, memory_mb=1024, wall_seconds=60, cpu_seconds=40)
    said = " ".join([str(result), *getattr(result, "log_lines", [])])
    assert "PROCESSOR RAN" not in said, "javac ran the bot's annotation processor"
    assert isinstance(result, bytes), f"the Java bot did not build: {result!r}"


def tar_of(*members: tarfile.TarInfo) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for member in members:
            archive.addfile(member, io.BytesIO(b"x" * member.size) if member.isfile() else None)
    return buffer.getvalue()


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type, member.linkname = kind, target
    return member


@pytest.mark.timeout(30)
@pytest.mark.parametrize("target", ["main.real", "/etc/passwd", "../../outside"])
def test_unpack_refuses_symlinks_in_the_products(backend, tmp_path, target):
    real = tarfile.TarInfo("main.real")
    real.size = 4
    products = tar_of(real, link("main", target))
    bot = tmp_path / "bot"
    bot.mkdir()
    with pytest.raises((builds.BuildError, tarfile.FilterError)):
        builds.unpack(products, bot)
    outside = [path for path in tmp_path.rglob("*") if path.is_symlink()]
    assert outside == [] or all(path.parent == bot / builds.BUILD_DIR for path in outside), \
        f"a symlink was planted outside the build folder: {outside}"
    assert not (tmp_path / "outside").exists()
