"""Runtimes and compiled bots (issue 25): start-up per runtime, time per decision, compile time per language.

Every figure is taken under each sandbox backend given (``--backend bwrap``, the default; ``--backend docker``
for the container backend with the image of sandbox/image/build-local.sh; repeatable), with the sandbox's
default bot limits (``sandbox.Limits()``) and the environment the runner gives bots.

* **Start-up** — wall time from calling ``sandbox.start`` to the bot's ``ready`` line having been read, the
  ``hello`` (a real Bura one, as the referee encodes it) written right after the start: what a seat's
  ``startup_ms`` has to cover, with the sandbox's own set-up. Two bots per runtime: a minimal protocol bot
  written by this benchmark (it answers ``hello`` with ``ready`` and each request with its first legal
  action: Python with the standard library only, Python importing numpy, Node, Perl with JSON::PP, and
  C++, Rust, Go and Java compiled through arena/builds.py) and the starter kit of examples/bura/<lang>/
  (there is no Perl kit). Baseline: ``/usr/bin/true``, from ``sandbox.start`` to its stdout closing, the
  sandbox's own cost. ``--starts`` starts each, interleaved round by round so load on a shared machine hits
  every runtime alike, after one warm-up start each (page cache); median and 95th percentile.
* **Per decision** — ``--games`` Bura matches of each bot against ``builtin:random`` through the referee
  (``arena.referee.play_match``, the runner's own ``ExternalPlayer`` and launcher settings), seats
  alternating, default time control. Timed is the referee's ``ask``: from writing the events since the
  seat's last request and the request itself to the bot's answer having been read and parsed (the referee's
  own work to build the observation is outside). Median, 95th percentile and the slowest decision.
* **Compile time** — ``arena.builds.compile_in_sandbox`` (no cache) of each compiled starter kit, median of
  ``--compile-runs``, with the build limits; and of a generated C++ bot of about ``--cpp-lines`` lines (the
  C++ kit followed by generated classes and functions, all compiled: external linkage). Wall time of the
  whole build: the sandbox's start, the copy into its /tmp, the compiler, the tar of the products. Under
  the container backend ``compile_in_sandbox`` never finishes (it closes the compiler's stdin at once, and
  Podman's container is then never set up: see ``compile_stdin_open``), so there the same build is run with
  stdin closed after the output; the compiled bots of the other two parts are built that way too.

    .venv/bin/python bench/runtimes.py [--backend bwrap] [--backend docker] [--starts 20] [--games 4]
                                       [--compile-runs 3] [--cpp-lines 3000] [--skip startup,decisions,compile]

Prints tables in milliseconds (compile times in seconds) and the load average before each part. No asserts:
it measures.
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import sandbox
from arena import builds, protocol
from arena.bots import make_bot
from arena.botspec import BotSpec, built, stage_bot
from arena.cards import derive_seed
from arena.games import resolve
from arena.games.options import rules_to_dict
from arena.players import BuiltinPlayer, ExternalPlayer
from arena.referee import TimeControl, play_match
from arena.runner import BOT_SEED_LABEL

ROOT = Path(__file__).resolve().parent.parent
KITS = ROOT / "examples" / "bura"
KIT_LANGUAGES = ("python", "js", "cpp", "rust", "go", "java")
ENV = {"PYTHONUNBUFFERED": "1"}  # what the runner gives every bot
READY_TIMEOUT_S = 60.0
MINIMAL_GAMES = 5  # times --games for the minimal bots: their first legal action is often a false claim, which
# ends the match after a few decisions

PYTHON_BOT = """\
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print('{"type":"ready","name":"minimal"}', flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}), flush=True)
    elif message["type"] == "goodbye":
        break
"""
NUMPY_BOT = "import numpy\n\nnumpy.zeros(3)\n" + PYTHON_BOT
NODE_BOT = """\
const lines = require("readline").createInterface({input: process.stdin});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") process.stdout.write('{"type":"ready","name":"minimal"}\\n');
  else if (message.type === "request")
    process.stdout.write(JSON.stringify({type: "action", id: message.id, action: message.legal_actions[0]}) + "\\n");
  else if (message.type === "goodbye") process.exit(0);
});
"""
PERL_BOT = """\
use strict;
use warnings;
use JSON::PP;
$| = 1;
my $json = JSON::PP->new;
while (my $line = <STDIN>) {
    my $message = $json->decode($line);
    if ($message->{type} eq "hello") { print qq({"type":"ready","name":"minimal"}\\n); }
    elsif ($message->{type} eq "request") {
        print $json->encode({type => "action", id => $message->{id}, action => $message->{legal_actions}[0]}), "\\n";
    }
    elsif ($message->{type} eq "goodbye") { last; }
}
"""
# The compiled minimal bots read the referee's compact JSON by scanning it: the request's first "id" is its
# own (it follows "type"), and the first legal action is the object after "legal_actions":[.
CPP_BOT = r"""
#include <cctype>
#include <iostream>
#include <string>

static std::string first_legal(const std::string& s) {
    size_t p = s.find("\"legal_actions\":[");
    if (p == std::string::npos) return "null";
    p += 17;
    size_t start = p;
    int depth = 0;
    bool in_string = false, escaped = false;
    for (; p < s.size(); ++p) {
        char c = s[p];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') in_string = true;
        else if (c == '{' || c == '[') ++depth;
        else if ((c == '}' || c == ']') && --depth == 0) return s.substr(start, p - start + 1);
    }
    return "null";
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("{\"type\":\"hello\"", 0) == 0) {
            std::cout << "{\"type\":\"ready\",\"name\":\"minimal\"}\n" << std::flush;
        } else if (line.rfind("{\"type\":\"request\"", 0) == 0) {
            size_t p = line.find("\"id\":") + 5, e = p;
            while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
            std::cout << "{\"type\":\"action\",\"id\":" << line.substr(p, e - p) << ",\"action\":" << first_legal(line)
                      << "}\n" << std::flush;
        } else if (line.rfind("{\"type\":\"goodbye\"", 0) == 0) {
            break;
        }
    }
}
"""
RUST_BOT = r"""
use std::io::{self, BufRead, Write};

fn first_legal(s: &str) -> &str {
    let start = match s.find("\"legal_actions\":[") { Some(found) => found + 17, None => return "null" };
    let bytes = s.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for p in start..bytes.len() {
        let c = bytes[p];
        if in_string {
            if escaped { escaped = false; }
            else if c == b'\\' { escaped = true; }
            else if c == b'"' { in_string = false; }
        } else if c == b'"' { in_string = true; }
        else if c == b'{' || c == b'[' { depth += 1; }
        else if c == b'}' || c == b']' { depth -= 1; if depth == 0 { return &s[start..=p]; } }
    }
    "null"
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if line.starts_with("{\"type\":\"hello\"") {
            out.write_all(b"{\"type\":\"ready\",\"name\":\"minimal\"}\n").unwrap();
        } else if line.starts_with("{\"type\":\"request\"") {
            let p = line.find("\"id\":").unwrap() + 5;
            let e = p + line[p..].bytes().take_while(|c| c.is_ascii_digit()).count();
            writeln!(out, "{{\"type\":\"action\",\"id\":{},\"action\":{}}}", &line[p..e], first_legal(&line)).unwrap();
        } else if line.starts_with("{\"type\":\"goodbye\"") {
            break;
        }
        out.flush().unwrap();
    }
}
"""
GO_BOT = """\
package main

import (
\t"bufio"
\t"encoding/json"
\t"os"
)

func main() {
\tin := bufio.NewScanner(os.Stdin)
\tin.Buffer(make([]byte, 1<<16), 1<<17)
\tout := bufio.NewWriter(os.Stdout)
\tfor in.Scan() {
\t\tvar message struct {
\t\t\tType    string            `json:"type"`
\t\t\tID      json.RawMessage   `json:"id"`
\t\t\tActions []json.RawMessage `json:"legal_actions"`
\t\t}
\t\tif json.Unmarshal(in.Bytes(), &message) != nil {
\t\t\tcontinue
\t\t}
\t\tswitch message.Type {
\t\tcase "hello":
\t\t\tout.WriteString(`{"type":"ready","name":"minimal"}` + "\\n")
\t\tcase "request":
\t\t\tout.WriteString(`{"type":"action","id":` + string(message.ID) + `,"action":`)
\t\t\tout.WriteString(string(message.Actions[0]) + "}\\n")
\t\tcase "goodbye":
\t\t\tout.Flush()
\t\t\treturn
\t\t}
\t\tout.Flush()
\t}
}
"""
JAVA_BOT = r"""
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

public class Main {
    static String firstLegal(String s) {
        int p = s.indexOf("\"legal_actions\":[");
        if (p < 0) return "null";
        int start = p + 17, depth = 0;
        boolean inString = false, escaped = false;
        for (p = start; p < s.length(); p++) {
            char c = s.charAt(p);
            if (inString) {
                if (escaped) escaped = false;
                else if (c == '\\') escaped = true;
                else if (c == '"') inString = false;
            } else if (c == '"') inString = true;
            else if (c == '{' || c == '[') depth++;
            else if ((c == '}' || c == ']') && --depth == 0) return s.substring(start, p + 1);
        }
        return "null";
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("{\"type\":\"hello\"")) {
                out.print("{\"type\":\"ready\",\"name\":\"minimal\"}\n");
            } else if (line.startsWith("{\"type\":\"request\"")) {
                int p = line.indexOf("\"id\":") + 5, e = p;
                while (e < line.length() && Character.isDigit(line.charAt(e))) e++;
                out.print("{\"type\":\"action\",\"id\":" + line.substring(p, e) + ",\"action\":");
                out.print(firstLegal(line) + "}\n");
            } else if (line.startsWith("{\"type\":\"goodbye\"")) {
                break;
            }
            out.flush();
        }
        out.flush();
    }
}
"""
# name -> (entry file, source)
MINIMAL: dict[str, tuple[str, str]] = {
    "python3": ("main.py", PYTHON_BOT), "python3 + numpy": ("main.py", NUMPY_BOT), "node": ("main.js", NODE_BOT),
    "perl": ("main.pl", PERL_BOT), "java": ("Main.java", JAVA_BOT), "C++": ("main.cpp", CPP_BOT),
    "Rust": ("main.rs", RUST_BOT), "Go": ("main.go", GO_BOT),
}
KIT_NAMES = {"python": "python3", "js": "node", "cpp": "C++", "rust": "Rust", "go": "Go", "java": "java"}

GENERATED_CLASS = """
struct Generated{i} {{
    std::vector<int> values;
    std::map<std::string, int> names;
    int score(int x) const {{
        int total = x;
        for (int v : values) total = total * 31 + (v ^ {i});
        return total;
    }}
    void add(const std::string& name, int v) {{
        names[name] += v;
        values.push_back(v * {i});
        std::sort(values.begin(), values.end());
    }}
    std::string describe() const {{
        std::string out = "generated{i}:";
        for (const auto& [key, value] : names) out += key + "=" + std::to_string(value) + ";";
        return out;
    }}
}};
int generated_use_{i}(int x) {{
    Generated{i} g;
    g.add("a", x);
    g.add("b", x + {i});
    return g.score(x) + static_cast<int>(g.describe().size());
}}
"""


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def read_line(fd: int, timeout: float = READY_TIMEOUT_S) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise RuntimeError("no line in time")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise RuntimeError("the bot closed stdout")
        data += chunk
    return data


def hello_line() -> bytes:
    game, rules = resolve("bura")
    return protocol.encode(protocol.hello(game=game, preset="bura", rules=rules_to_dict(rules), seat=0, players=2,
                                          teams=[[0], [1]],
                                          time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000}))


def start_once(command: list[str], folder: Path, backend: str, hello: bytes | None) -> float:
    """Seconds from sandbox.start to the 'ready' line read (hello None: to stdout closing)."""
    began = time.perf_counter()
    proc = sandbox.start(command, folder, sandbox.Limits(), backend=backend, allow_unsafe=backend == "unsafe",
                         env=ENV)
    try:
        fd = proc.stdout.fileno()
        if hello is None:
            while os.read(fd, 65536):
                pass
        else:
            proc.stdin.write(hello)
            read_line(fd)
        return time.perf_counter() - began
    finally:
        proc.finish(grace_seconds=0.5)
        proc.close()


def compile_bot(directory: Path, plan: builds.Plan, backend: str) -> bytes:
    return builds.compile_in_sandbox(directory, plan, backend)


def stage(source: Path, target: Path, backend: str) -> BotSpec:
    """A staged bot ready to start: built (no cache) in this backend when it is source."""
    spec = stage_bot(source, target)
    if spec.language is not None and backend == "docker":
        builds.unpack(compile_bot(target, builds.detect(target, spec.label), backend), target)
        return spec
    spec = built(spec, backend=backend, cache=None)
    if spec.build_failure:
        raise SystemExit(f"{source}: {spec.build_failure}\n" + "\n".join(spec.build_log[-20:]))
    return spec


def write_minimal(scratch: Path) -> dict[str, Path]:
    folders = {}
    for name, (entry, source) in MINIMAL.items():
        folder = scratch / "minimal" / name.replace(" ", "").replace("+", "-")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / entry).write_text(source)
        folders[name] = folder
    return folders


def bots_for(backend: str, scratch: Path, minimal: dict[str, Path]) -> dict[tuple[str, str], BotSpec]:
    """(runtime, 'minimal' or 'kit') -> a staged, built bot for this backend."""
    bots = {}
    for name, folder in minimal.items():
        bots[name, "minimal"] = stage(folder, scratch / backend / "minimal" / folder.name, backend)
    for lang in KIT_LANGUAGES:
        bots[KIT_NAMES[lang], "kit"] = stage(KITS / lang, scratch / backend / "kit" / lang, backend)
    return bots


def measure_startup(backend: str, bots: dict[tuple[str, str], BotSpec], starts: int) -> None:
    hello = hello_line()
    kinds: dict[tuple[str, str], tuple[list[str], Path, bytes | None]] = {
        ("sandbox alone (/usr/bin/true)", "baseline"): (["/usr/bin/true"], next(iter(bots.values())).directory, None)}
    kinds.update({key: (list(spec.command), Path(spec.directory), hello) for key, spec in bots.items()})
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in kinds}
    failed: dict[tuple[str, str], str] = {}
    for key, (command, folder, line) in kinds.items():  # warm-up: page cache, image layers, seccomp programs
        try:
            start_once(command, Path(folder), backend, line)
        except Exception as err:  # a runtime this backend cannot start is reported, not fatal
            failed[key] = str(err)[:200]
    for _ in range(starts):
        for key, (command, folder, line) in kinds.items():
            if key not in failed:
                samples[key].append(start_once(command, Path(folder), backend, line))
    print(f"\nstart-up, {backend}: sandbox.start to 'ready' read, {starts} interleaved starts each, {load()}")
    print(f"  {'runtime':32} {'bot':9} {'median':>9} {'p95':>9} {'max':>9}   under 10,000 ms")
    for key, values in samples.items():
        if key in failed:
            print(f"  {key[0]:32} {key[1]:9} failed: {failed[key]}")
            continue
        median, high = statistics.median(values) * 1000, p95(values) * 1000
        print(f"  {key[0]:32} {key[1]:9} {median:7.1f}ms {high:7.1f}ms {max(values) * 1000:7.1f}ms   "
              f"{10000 / high:6.0f}x (p95)")


class Timed:
    """The runner's ExternalPlayer, with every ask timed (write of events and request to the answer parsed)."""

    def __init__(self, player: ExternalPlayer, times: list[float]):
        self._player = player
        self._times = times

    def __getattr__(self, name):
        return getattr(self._player, name)

    def ask(self, request, deadline, before=()):
        began = time.perf_counter()
        answer = self._player.ask(request, deadline, before)
        self._times.append(time.perf_counter() - began)
        return answer


def launcher(spec: BotSpec, backend: str):
    limits = sandbox.Limits(wall_seconds=600, cpu_seconds=600)
    return lambda: sandbox.start(list(spec.command), Path(spec.directory), limits, backend=backend,
                                 allow_unsafe=backend == "unsafe", env=ENV)


def measure_decisions(backend: str, bots: dict[tuple[str, str], BotSpec], games: int) -> None:
    game, rules = resolve("bura")
    print(f"\nper decision, {backend}: referee ask (events + request written → answer read), bura vs "
          f"builtin:random, {games} matches each, {load()}")
    print(f"  {'runtime':20} {'bot':9} {'decisions':>9} {'median':>9} {'p95':>9} {'max':>9}   under 1,000 ms")
    for (name, kind), spec in bots.items():
        times: list[float] = []
        verdicts = set()
        for g in range(games * (MINIMAL_GAMES if kind == "minimal" else 1)):
            seed = derive_seed(25, g)
            bot_seat = g % 2
            allowance = sandbox.runtimes.STARTUP_ALLOWANCE_MS.get(spec.runtime or "", 0)
            external = Timed(ExternalPlayer(spec.label, launcher(spec, backend), startup_allowance_ms=allowance),
                             times)
            opponent = make_bot(game, "random", 1 - bot_seat, rules, derive_seed(seed, BOT_SEED_LABEL, 1 - bot_seat))
            builtin = BuiltinPlayer("builtin:random", opponent, "random")
            players = [external, builtin] if bot_seat == 0 else [builtin, external]
            record = play_match(rules, seed, players, preset="bura", time_control=TimeControl())
            verdicts.add(record.result["seats"][bot_seat]["verdict"])
        note = "" if verdicts == {"ok"} else f"   verdicts {sorted(verdicts)}"
        if not times:
            print(f"  {name:20} {kind:9} no decisions{note}")
            continue
        median, high = statistics.median(times) * 1000, p95(times) * 1000
        print(f"  {name:20} {kind:9} {len(times):9} {median:7.3f}ms {high:7.3f}ms {max(times) * 1000:7.1f}ms   "
              f"{1000 / high:6.0f}x (p95){note}")


def big_cpp(lines: int) -> str:
    kit = (KITS / "cpp" / "main.cpp").read_text()
    parts = [kit, "\n#include <map>\n// ---- generated by bench/runtimes.py: compiled, never called ----\n"]
    total = sum(part.count("\n") for part in parts)
    i = 0
    while total < lines:
        chunk = GENERATED_CLASS.format(i=i)
        parts.append(chunk)
        total += chunk.count("\n")
        i += 1
    return "".join(parts)


def measure_compile(backend: str, scratch: Path, runs: int, cpp_lines: int) -> None:
    big = scratch / backend / "compile" / "big-cpp"
    big.mkdir(parents=True, exist_ok=True)
    source = big_cpp(cpp_lines)
    (big / "main.cpp").write_text(source)
    folders = {f"{KIT_NAMES[lang]} kit": KITS / lang for lang in ("cpp", "rust", "go", "java")}
    folders[f"C++, {source.count(chr(10)):,} lines"] = big
    how = "arena.builds.compile_in_sandbox"
    print(f"\ncompile time, {backend}: {how}, no cache, {runs} runs each, {load()}")
    print(f"  {'bot':24} {'lines':>6} {'median':>8} {'min':>8} {'max':>8}   of the 300 s build limit")
    for label, folder in folders.items():
        staged = scratch / backend / "compile" / f"staged-{len(folders)}-{label.split()[0].strip(',')}-{len(label)}"
        shutil.rmtree(staged, ignore_errors=True)
        stage_bot(folder, staged)
        plan = builds.detect(staged, label)
        lines = sum(path.read_text().count("\n") for path in staged.iterdir()
                    if path.suffix in plan.language.sources)
        seconds = []
        for _ in range(runs):
            began = time.monotonic()
            compile_bot(staged, plan, backend)
            seconds.append(time.monotonic() - began)
        print(f"  {label:24} {lines:6} {statistics.median(seconds):7.2f}s {min(seconds):7.2f}s "
              f"{max(seconds):7.2f}s   {statistics.median(seconds) / 300:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", action="append", choices=("bwrap", "docker", "unsafe"),
                        help="sandbox backend (repeatable; default bwrap)")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--compile-runs", type=int, default=3)
    parser.add_argument("--cpp-lines", type=int, default=3000)
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: startup,decisions,compile")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} CPUs, {load()}")
    with tempfile.TemporaryDirectory(prefix="kozyr-runtimes-") as folder:
        scratch = Path(folder)
        os.chmod(scratch, 0o755)
        minimal = write_minimal(scratch)
        for backend in args.backend or ["bwrap"]:
            if not skip >= {"startup", "decisions"}:
                bots = bots_for(backend, scratch, minimal)
                if "startup" not in skip:
                    measure_startup(backend, bots, args.starts)
                if "decisions" not in skip:
                    measure_decisions(backend, bots, args.games)
            if "compile" not in skip:
                measure_compile(backend, scratch, args.compile_runs, args.cpp_lines)


if __name__ == "__main__":
    main()
